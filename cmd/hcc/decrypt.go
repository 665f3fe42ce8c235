package main

import (
	"flag"
	"fmt"

	"github.com/hcc-fhe/hcc"
)

func decryptCommand() *command {
	w := &workflowFlags{}
	return &command{
		name: "decrypt", args: "CIRCUIT OUT.ct", nargs: 2, doc: "decrypt an evaluated ciphertext file and print the named outputs",
		run: func(e *cmdEnv) error { return runDecrypt(e, w) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.StringVar(&w.key, "key", "", "secret key `FILE` (DIR/secret.key from hcc keygen)")
		},
	}
}

func runDecrypt(e *cmdEnv, w *workflowFlags) error {
	ck, err := readClientKey(e, w.key)
	if err != nil {
		return err
	}
	path := e.args[1]
	out, err := hcc.ReadCiphertextsFile(path)
	if err != nil {
		return err
	}
	p, err := program(e, w.target(e, ck.Engine(), ck.Params(), true), false,
		func(p *hcc.Program) error { return ck.CheckOutputs(p, out) })
	if err != nil {
		return err
	}
	got, err := ck.Decrypt(p, out)
	if err != nil {
		return fmt.Errorf("decrypting %s: %w", path, err)
	}
	return printOutputs(e, p, got, out.Instances() > 1, nil)
}
