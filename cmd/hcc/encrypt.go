package main

import (
	"flag"
	"fmt"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
)

func encryptCommand() *command {
	w := &workflowFlags{}
	return &command{
		name: "encrypt", args: "CIRCUIT", doc: "encrypt a circuit's inputs under a secret key into a ciphertext file",
		run: func(e *cmdEnv) error { return runEncrypt(e, w) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.StringVar(&w.key, "key", "", "secret key `FILE` (DIR/secret.key from hcc keygen)")
			fs.BoolVar(&w.insecure, "insecure", false, "allow encrypting under a key of an insecure Toy parameter set (tests and demos only)")
			fs.Var(&e.ins, "in", inHelp)
			batchFlag(fs, w)
			inputRGSWFlag(fs, w)
			forceMemoryFlag(fs, w)
			outFlag(fs, e, "write the encrypted inputs to `FILE` (e.g. in.ct)")
		},
	}
}

func runEncrypt(e *cmdEnv, w *workflowFlags) error {
	if e.out == "" {
		return fmt.Errorf("missing -o FILE for the encrypted inputs")
	}
	if err := hcc.CheckWritable(e.out, append([]string{w.key, w.batch}, e.args...)...); err != nil {
		return err
	}
	if err := checkBatchReadable(w.batch); err != nil {
		return err
	}
	ck, err := readClientKey(e, w.key)
	if err != nil {
		return err
	}
	if ck.Insecure() && !w.insecure {
		return fmt.Errorf("%s is a key of the insecure parameter set %s (for tests only): pass --insecure to encrypt under it anyway", w.key, ck.Params())
	}
	var set *inputSets
	p, err := programWithInputs(e, w.target(e, ck.Engine(), ck.Params(), w.insecure), false,
		func(c *ir.Circuit) (err error) { set, err = readInputs(e, c, w.batch); return err }, nil)
	if err != nil {
		return err
	}
	if err := checkMemory(e, w, p, hcc.MemoryOptions{EncryptOnly: true, Packs: packsOf(p, len(set.values)), InputRGSW: w.inputRGSW}); err != nil {
		return err
	}
	e.warnInsecure(ck)
	cts, err := ck.EncryptWith(p, hcc.EncryptOptions{InputRGSW: w.inputRGSW}, set.values...)
	if err != nil {
		return err
	}
	data, err := cts.MarshalBinary()
	if err != nil {
		return err
	}
	mb, err := writeOutput(e.out, data)
	if err != nil {
		return err
	}
	what := ""
	if set.batch {
		what = fmt.Sprintf(" of %d instances", len(set.values))
	}
	if cts.HasInputRGSW() {
		what += " with their input RGSWs"
	}
	fmt.Fprintf(e.stdout, "encrypted %d input bits%s of circuit %q under key %v: wrote %s (%.1f MB)\n",
		cts.Bits(), what, p.Name(), ck.KeyID(), e.out, mb)
	return nil
}
