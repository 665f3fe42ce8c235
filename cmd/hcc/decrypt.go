package main

import (
	"flag"
	"fmt"

	"github.com/hcc-fhe/hcc"
)

func decryptCommand() *command {
	w := &workflowFlags{}
	var length int
	return &command{
		name: "decrypt", args: "[CIRCUIT] OUT.ct", nargs: 2, minArgs: 1,
		doc: "decrypt an evaluated ciphertext file and print the named outputs (-o: write 16-byte records as bytes)",
		run: func(e *cmdEnv) error {
			if e.out != "" || len(e.args) == 1 { // transcipher.go
				return runDecryptRecords(e, w, length)
			}
			return runDecrypt(e, w)
		},
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.StringVar(&w.key, "key", "", "secret key `FILE` (DIR/secret.key from hcc keygen)")
			outFlag(fs, e, "write the records of a 16-byte-record ciphertext file (hcc transcipher eval, or outputs of a u8[16]/128-bit output) to `FILE` as bytes; without CIRCUIT the built-in record program")
			fs.IntVar(&length, "length", 0, "with -o: keep the first `N` bytes (the AES-CTR data's length; the rest of a partial last record is keystream)")
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
