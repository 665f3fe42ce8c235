package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/hcc-fhe/hcc/backend"
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
			batchFlag(fs, w)
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
	set, err := readInstances(e, c, w.batch)
	if err != nil {
		return err
	}
	instances, err := set.packed(c)
	if err != nil {
		return err
	}
	if set.batch && sk.slots() == 1 {
		return fmt.Errorf("--batch needs a packed backend (bgv); %s ciphertexts hold one instance", kf.backend)
	}
	if set.batch && len(instances) > sk.slots() {
		return fmt.Errorf("%d instances do not fit in the %d slots of %s/%s (split the batch file)", len(instances), sk.slots(), kf.backend, kf.params)
	}
	cts, err := sk.encrypt(c, instances)
	if err != nil {
		return err
	}
	f := &ctFile{
		fileHeader:  fileHeader{kind: ctInputs, backend: kf.backend, params: kf.params, key: kf.key},
		circuitHash: circuitHash(c), circuitName: c.Name, layout: layoutOf(c.Inputs), instances: set.count(),
	}
	if err := f.setCiphertexts(sk, cts); err != nil {
		return err
	}
	data := f.marshal()
	if err := writeFileMode(e.out, data, 0o644); err != nil {
		return err
	}
	what := ""
	if set.batch {
		what = fmt.Sprintf(" of %d instances", len(instances))
	}
	fmt.Fprintf(e.stdout, "encrypted %d input bits%s of circuit %q under key %v: wrote %s (%.1f MB)\n",
		len(cts), what, c.Name, kf.key, e.out, float64(len(data))/1e6)
	return nil
}

// setCiphertexts stores cts in f with the backend's encoding.
func (f *ctFile) setCiphertexts(codec ctCodec, cts []backend.Ciphertext) error {
	size, enc, err := codec.encode(cts)
	if err != nil {
		return err
	}
	f.ctSize, f.cts = size, enc
	return nil
}

// ciphertexts decodes f's ciphertexts, which must be of the key file kf's
// backend and parameter set; path names the file in errors.
func (f *ctFile) ciphertexts(path string, kf *keyFile, codec ctCodec) ([]backend.Ciphertext, error) {
	if f.backend != kf.backend || f.params != kf.params {
		return nil, fmt.Errorf("%s holds %s ciphertexts for parameter set %s, not %s/%s", filepath.Base(path), f.backend, f.params, kf.backend, kf.params)
	}
	if f.instances > codec.slots() {
		return nil, fmt.Errorf("%s: %d instances in %d slots", filepath.Base(path), f.instances, codec.slots())
	}
	out := make([]backend.Ciphertext, len(f.cts))
	for i, data := range f.cts {
		c, err := codec.decode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: ciphertext %d: %w", filepath.Base(path), i, err)
		}
		out[i] = c
	}
	return out, nil
}
