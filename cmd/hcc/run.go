package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/cmd/hcc/load"
	"github.com/hcc-fhe/hcc/ir"
)

func runCommand() *command {
	w := &workflowFlags{}
	return &command{
		name: "run", args: "CIRCUIT", doc: "keygen, encrypt, eval and decrypt in one process with a fresh key, and print the outputs",
		run: func(e *cmdEnv) error { return runRun(e, w) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.Var(&e.ins, "in", "input `name=value[,value...]` (repeat for each input; decimal, 0x hex, 0b binary)")
			w.backendFlags(fs)
			threadsFlag(fs, w)
			w.parityFailureFlag(fs)
			fs.BoolVar(&w.check, "check", false, "compare the decrypted outputs with the plaintext simulator and fail on a mismatch")
			batchFlag(fs, w)
		},
	}
}

func runRun(e *cmdEnv, w *workflowFlags) error {
	if w.backend == "bgv" {
		return runRunBGV(e, w)
	}
	if w.batch != "" {
		return fmt.Errorf("--batch needs --backend bgv (FHEW ciphertexts hold one instance)")
	}
	p, err := w.fhewParams()
	if err != nil {
		return err
	}
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	in, err := load.Inputs(c, e.ins)
	if err != nil {
		return err
	}
	bits, err := c.PackInputs(in)
	if err != nil {
		return err
	}
	target, err := w.fhewTarget(p)
	if err != nil {
		return err
	}
	t0 := time.Now()
	sk, ek, err := newFHEWKeys(p)
	if err != nil {
		return err
	}
	ev, err := fhew.NewEvaluator(p, ek)
	if err != nil {
		return err
	}
	enc, err := fhew.NewEncryptor(sk)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "keygen %s (%s backend) in %v\n", p.Name(), w.backend, time.Since(t0).Round(time.Millisecond))
	outs, err := evalEncrypted(e, w, c, fhew.NewBackendWithTarget(ev, target), enc.EncryptBits(bits))
	if err != nil {
		return err
	}
	gotBits, err := sk.DecryptBits(outs)
	if err != nil {
		return fmt.Errorf("decrypting the outputs: %w", err)
	}
	got := c.UnpackOutputs(gotBits)
	if _, err := io.WriteString(e.stdout, load.Outputs(c, got)); err != nil {
		return err
	}
	if !w.check {
		return nil
	}
	want, err := c.Eval(in)
	if err != nil {
		return err
	}
	if err := compareOutputs(c, got, want); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "check: all %d output bits match the plaintext simulator\n", c.NumOutputBits())
	return nil
}

func batchFlag(fs *flag.FlagSet, w *workflowFlags) {
	fs.StringVar(&w.batch, "batch", "", "bgv only: one input set per line of `FILE` (name=value ... as for --in; # comments), one per slot; "+
		"the outputs are one line of name=value per instance. More instances than slots is an error")
}

// compareOutputs reports the first output element where the encrypted run
// (got) and the plaintext simulator (want) differ, and how many differ.
func compareOutputs(c *ir.Circuit, got, want ir.Values) error {
	var first string
	bad := 0
	for i := range c.Outputs {
		bus := &c.Outputs[i]
		for j, w := range want[bus.Name] {
			g := got[bus.Name][j]
			if g.Cmp(w) == 0 {
				continue
			}
			if bad == 0 {
				name := bus.Name
				if bus.Dims != nil {
					name = fmt.Sprintf("%s[%d]", name, j)
				}
				gd, gh := load.FormatValue(bus, g)
				wd, wh := load.FormatValue(bus, w)
				first = fmt.Sprintf("%s = %s (%s), the plaintext simulator says %s (%s)", name, gd, gh, wd, wh)
			}
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("check FAILED: encrypted result differs from the plaintext simulator in %d output element(s): %s", bad, first)
	}
	return nil
}
