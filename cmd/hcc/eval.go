package main

import (
	"flag"
	"fmt"

	"github.com/hcc-fhe/hcc"
)

func evalCommand() *command {
	w := &workflowFlags{}
	return &command{
		name: "eval", args: "CIRCUIT IN.ct", nargs: 2, doc: "evaluate a circuit or compiled program on encrypted inputs with the evaluation key (no secret key)",
		run: func(e *cmdEnv) error { return runEval(e, w) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.StringVar(&w.evalKey, "eval-key", "", "evaluation key `FILE` (DIR/eval.key from hcc keygen)")
			threadsFlag(fs, w)
			w.parityFailureFlag(fs)
			forceMemoryFlag(fs, w)
			outFlag(fs, e, "write the encrypted outputs to `FILE` (e.g. out.ct)")
		},
	}
}

func runEval(e *cmdEnv, w *workflowFlags) error {
	if e.out == "" {
		return fmt.Errorf("missing -o FILE for the encrypted outputs")
	}
	if err := w.checkCheap(); err != nil {
		return err
	}
	if err := hcc.CheckWritable(e.out, append([]string{w.evalKey}, e.args...)...); err != nil {
		return err
	}
	if w.evalKey == "" {
		return fmt.Errorf("missing --eval-key DIR/eval.key")
	}
	sk, err := hcc.ReadServerKeyFile(w.evalKey)
	if err != nil {
		return err
	}
	e.warn(sk.SecurityWarning())
	e.keyFile = w.evalKey
	path := e.args[1]
	in, err := hcc.ReadCiphertextsFile(path)
	if err != nil {
		return err
	}
	// The key was chosen at keygen: a Toy set is allowed here.
	p, err := program(e, w.target(e, sk.Engine(), sk.Params(), true), true,
		func(p *hcc.Program) error { return sk.CheckInputs(p, in) })
	if err != nil {
		return err
	}
	if err := checkMemory(e, w, p, hcc.MemoryOptions{Threads: w.threads, Packs: in.Packs(), InputRGSW: in.HasInputRGSW()}); err != nil {
		return err
	}
	e.warnInsecure(sk)
	out, err := evaluate(e, w, p, sk, in)
	if err != nil {
		return err
	}
	data, err := out.MarshalBinary()
	if err != nil {
		return err
	}
	_, err = writeOutput(e.out, data)
	return err
}
