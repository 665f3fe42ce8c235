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
			inputRGSWFlag(fs, w)
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
	var src *ir.Circuit // the loaded circuit: the source, unless a .hcp
	p, err := programWithInputs(e, t, true, func(c *ir.Circuit) (err error) {
		src = c
		set, err = readInputs(e, c, w.batch)
		return err
	}, nil)
	if err != nil {
		return err
	}
	if err := checkMemory(e, w, p, hcc.MemoryOptions{Threads: w.threads, Client: true, Packs: packsOf(p, len(set.values)), InputRGSW: w.inputRGSW}); err != nil {
		return err
	}
	t0 := time.Now()
	ck, sk, err := hcc.GenerateKeys(p)
	if err != nil {
		return err
	}
	e.warnInsecure(ck)
	fmt.Fprintf(e.stderr, "keygen %s (%s backend) in %v; %s\n", ck.Params(), ck.Engine(), time.Since(t0).Round(time.Millisecond), p.Details())
	t0 = time.Now()
	in, err := ck.EncryptWith(p, hcc.EncryptOptions{InputRGSW: w.inputRGSW}, set.values...)
	if err != nil {
		return err
	}
	with := ""
	if in.HasInputRGSW() {
		with = " with their input RGSWs"
	}
	fmt.Fprintf(e.stderr, "encrypted %d input bits%s of %d instance(s) in %d pack(s) in %v\n", in.Bits(), with, in.Instances(), in.Packs(), time.Since(t0).Round(time.Millisecond))
	out, err := evaluate(e, w, p, sk, in)
	if err != nil {
		return err
	}
	got, err := ck.Decrypt(p, out)
	if err != nil {
		return fmt.Errorf("decrypting the outputs: %w", err)
	}
	var want []hcc.Values
	var ref string
	if w.check {
		// Before printing anything: a miscompilation is an error of its own.
		if want, ref, err = plainReference(src, p, set.values, hcc.IsProgramFile(e.args[0])); err != nil {
			return err
		}
	}
	if err := printOutputs(e, p, got, set.batch, nil); err != nil || want == nil {
		return err
	}
	for j := range got {
		if err := compareOutputs(p, got[j], want[j]); err != nil {
			if set.batch {
				return fmt.Errorf("instance %d: %w", j+1, err)
			}
			return err
		}
	}
	what := ""
	if set.batch {
		what = fmt.Sprintf(" of %d instances", len(got))
	}
	fmt.Fprintf(e.stderr, "check: all %d output bits%s match %s\n", p.Circuit().NumOutputBits(), what, ref)
	return nil
}

// plainReference is what run --check compares the decrypted outputs with:
// the plaintext evaluation of the source circuit src, before any of the
// engine's passes, so that a miscompilation fails the check. The compiled
// program is evaluated too and must agree with the source (a
// miscompilation found without any encryption). For a compiled program
// file (fromProgram) the source is not available: the compiled program is
// the reference, and ref says so.
func plainReference(src *ir.Circuit, p *hcc.Program, sets []hcc.Values, fromProgram bool) (want []hcc.Values, ref string, err error) {
	for j, v := range sets {
		compiled, err := p.EvalPlain(v)
		if err == nil && !fromProgram {
			var source hcc.Values
			if source, err = src.Eval(v); err == nil {
				if diff := compareNamed(p, compiled, source, "the compiled program (in plaintext)", "the source circuit"); diff != nil {
					err = fmt.Errorf("%w: a compiler bug", diff)
				}
				compiled = source
			}
		}
		if err != nil {
			if len(sets) > 1 {
				return nil, "", fmt.Errorf("instance %d: %w", j+1, err)
			}
			return nil, "", err
		}
		want = append(want, compiled)
	}
	if fromProgram {
		return want, "the compiled program's plaintext evaluation (the source circuit is not available from a .hcp)", nil
	}
	return want, "the source circuit's plaintext evaluation (and the compiled program's)", nil
}
