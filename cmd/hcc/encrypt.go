package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/cmd/hcc/load"
)

func encryptCommand() *command {
	w := &workflowFlags{}
	return &command{
		name: "encrypt", args: "CIRCUIT", doc: "encrypt a circuit's inputs under a secret key into a ciphertext file",
		run: func(e *cmdEnv) error { return runEncrypt(e, w) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.StringVar(&w.key, "key", "", "secret key `FILE` (DIR/secret.key from hcc keygen)")
			fs.Var(&e.ins, "in", "input `name=value[,value...]` (repeat for each input; decimal, 0x hex, 0b binary)")
			outFlag(fs, e, "write the encrypted inputs to `FILE` (e.g. in.ct)")
		},
	}
}

func runEncrypt(e *cmdEnv, w *workflowFlags) error {
	if e.out == "" {
		return fmt.Errorf("missing -o FILE for the encrypted inputs")
	}
	sk, kf, err := loadSecretKey(w.key)
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
	enc, err := fhew.NewEncryptor(sk)
	if err != nil {
		return err
	}
	f := &ctFile{
		fileHeader:  fileHeader{kind: ctInputs, backend: kf.backend, params: kf.params, key: kf.key},
		circuitHash: circuitHash(c), circuitName: c.Name, layout: layoutOf(c.Inputs),
	}
	f.setCiphertexts(sk.Params(), enc.EncryptBits(bits))
	data := f.marshal()
	if err := writeFileMode(e.out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "encrypted %d input bits of circuit %q under key %v: wrote %s (%.1f MB)\n",
		len(bits), c.Name, kf.key, e.out, float64(len(data))/1e6)
	return nil
}

// setCiphertexts stores FHEW ciphertexts in f.
func (f *ctFile) setCiphertexts(p fhew.Params, cts []backend.Ciphertext) {
	f.ctSize = fhew.CiphertextSize(p)
	f.cts = make([][]byte, len(cts))
	for i, c := range cts {
		f.cts[i] = fhew.AppendCiphertext(make([]byte, 0, f.ctSize), c.(*fhew.Ciphertext))
	}
}

// ciphertexts decodes f's ciphertexts for p; path names the file in errors.
func (f *ctFile) ciphertexts(path string, p fhew.Params) ([]backend.Ciphertext, error) {
	if f.backend != "fhew" || f.params != p.Name() {
		return nil, fmt.Errorf("%s holds %s ciphertexts for parameter set %s, not fhew/%s", filepath.Base(path), f.backend, f.params, p.Name())
	}
	out := make([]backend.Ciphertext, len(f.cts))
	for i, data := range f.cts {
		c, err := fhew.DecodeCiphertext(p, data)
		if err != nil {
			return nil, fmt.Errorf("%s: ciphertext %d: %w", filepath.Base(path), i, err)
		}
		out[i] = c
	}
	return out, nil
}
