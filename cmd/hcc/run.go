package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
)

func runCommand() *command {
	w := &workflowFlags{}
	return &command{
		name: "run", args: "CIRCUIT", doc: "keygen, encrypt, eval and decrypt in one process with a fresh key, and print the outputs",
		run: func(e *cmdEnv) error { return runRun(e, w) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.Var(&e.ins, "in", inHelp)
			w.backendFlags(fs)
			threadsFlag(fs, w)
			w.parityFailureFlag(fs)
			fs.BoolVar(&w.check, "check", false, "compare the decrypted outputs with the plaintext simulator and fail on a mismatch")
			batchFlag(fs, w)
			forceMemoryFlag(fs, w)
		},
	}
}

// runRun is compile (the parameter choice included), parse the inputs,
// fresh keys, encrypt, evaluate, decrypt, print; every cheap check first.
func runRun(e *cmdEnv, w *workflowFlags) error {
	if err := w.checkCheap(); err != nil {
		return err
	}
	if w.backend != "" {
		if _, err := hcc.LookupEngine(w.backend); err != nil {
			return err
		}
	}
	if err := checkBatchReadable(w.batch); err != nil {
		return err
	}
	t := w.target(e, w.backend, w.params, w.insecure)
	var set *inputSets
	p, err := programWithInputs(e, t, true, func(c *ir.Circuit) (err error) { set, err = readInputs(e, c, w.batch); return err }, nil)
	if err != nil {
		return err
	}
	if err := checkMemory(e, w, p, hcc.MemoryOptions{Threads: w.threads, Client: true, Packs: packsOf(p, len(set.values))}); err != nil {
		return err
	}
	t0 := time.Now()
	ck, sk, err := hcc.GenerateKeys(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "keygen %s (%s backend) in %v; %s\n", ck.Params(), ck.Engine(), time.Since(t0).Round(time.Millisecond), p.Details())
	t0 = time.Now()
	in, err := ck.Encrypt(p, set.values...)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "encrypted %d input bits of %d instance(s) in %d pack(s) in %v\n", in.Bits(), in.Instances(), in.Packs(), time.Since(t0).Round(time.Millisecond))
	out, err := evaluate(e, w, p, sk, in)
	if err != nil {
		return err
	}
	got, err := ck.Decrypt(p, out)
	if err != nil {
		return fmt.Errorf("decrypting the outputs: %w", err)
	}
	var want []hcc.Values
	if w.check {
		for j, v := range set.values {
			o, err := p.EvalPlain(v)
			if err != nil {
				return fmt.Errorf("instance %d: %w", j+1, err)
			}
			want = append(want, o)
		}
	}
	return printOutputs(e, p, got, set.batch, want)
}
