package main

import (
	"flag"
	"fmt"
	"path/filepath"
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
	sk, kf, err := loadSecretKey(w.key)
	if err != nil {
		return err
	}
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	path := e.args[1]
	f, err := openCtFileFor(path, ctOutputs, c, e.args[0], kf.key, w.key, c.Outputs)
	if err != nil {
		return err
	}
	cts, err := f.ciphertexts(path, kf, sk)
	if err != nil {
		return err
	}
	got, err := sk.decrypt(cts, f.instances)
	if err != nil {
		return fmt.Errorf("decrypting %s: %w", filepath.Base(path), err)
	}
	return printInstances(e, c, got, f.instances > 0, nil)
}
