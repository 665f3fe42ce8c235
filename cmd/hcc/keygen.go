package main

import (
	"errors"
	"flag"
	"fmt"
	goruntime "runtime"
	"time"

	"github.com/hcc-fhe/hcc"
)

func keygenCommand() *command {
	w := &workflowFlags{}
	var transcipher bool
	return &command{
		name: "keygen", doc: "generate a key pair: DIR/secret.key (client only) and DIR/eval.key (for the server)",
		run: func(e *cmdEnv) error { return runKeygen(e, w, hcc.KeyOptions{Transcipher: transcipher}) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			w.backendFlags(fs)
			fs.BoolVar(&transcipher, "transcipher", false, "bgv: add the keys hcc transcipher needs (7 Frobenius automorphism keys, about 650 MB more eval key at M65537)")
			outFlag(fs, e, "write the keys to directory `DIR` (created if missing)")
			fs.StringVar(&w.program, "for", "", "generate keys for the engine and parameter set of the compiled program `FILE` (.hcp from hcc compile --backend)")
			fs.BoolVar(&w.force, "force", false, "overwrite existing key files in DIR (every ciphertext made under the old key becomes undecryptable)")
		},
	}
}

func runKeygen(e *cmdEnv, w *workflowFlags, o hcc.KeyOptions) error {
	if e.out == "" {
		return fmt.Errorf("missing -o DIR")
	}
	// The output directory is checked before the (possibly long) keygen.
	if err := hcc.CheckKeyDir(e.out, w.force); err != nil {
		return keyExists(err)
	}
	t := hcc.Target{Engine: w.backend, Params: w.params, Insecure: w.insecure}
	var gen func() (*hcc.ClientKey, *hcc.ServerKey, error)
	if w.program != "" {
		// The program file's recorded set is used, but only --insecure
		// allows a Toy one (hcc.GenerateKeys refuses it otherwise).
		p, err := hcc.Compile(hcc.File(w.program), hcc.Target{Insecure: w.insecure})
		if err != nil {
			return err
		}
		if t.Engine != "" && t.Engine != p.Target().Engine || t.Params != "" && t.Params != p.Target().Params {
			return fmt.Errorf("%s is a program for %s/%s; --backend and --params say otherwise", w.program, p.Target().Engine, p.Target().Params)
		}
		gen = func() (*hcc.ClientKey, *hcc.ServerKey, error) { return hcc.GenerateKeysWith(p, o) }
		// The figure a run of the program will need (eval and run check it).
		if est, ok, err := p.EstimateMemory(hcc.MemoryOptions{Threads: goruntime.GOMAXPROCS(0)}); err == nil && ok {
			fmt.Fprintf(e.stderr, "memory: evaluating %s needs %s at the peak (%d threads)\n", w.program, est.Text, goruntime.GOMAXPROCS(0))
		}
	} else {
		gen = func() (*hcc.ClientKey, *hcc.ServerKey, error) { return hcc.GenerateKeysForWith(t, o) }
	}
	t0 := time.Now()
	ck, sk, err := gen()
	if err != nil {
		return err
	}
	e.warnInsecure(ck)
	e.warn(ck.SecurityWarning())
	elapsed := time.Since(t0)
	secret, eval, size, err := hcc.WriteKeys(e.out, ck, sk, w.force)
	if err != nil {
		return keyExists(err)
	}
	fmt.Fprintf(e.stdout, "key %v (%s, %s backend) generated in %v\n", ck.KeyID(), ck.Params(), ck.Engine(), elapsed.Round(time.Millisecond))
	fmt.Fprintf(e.stdout, "wrote %s (keep it private) and %s (%.1f MB, for the evaluator)\n", secret, eval, float64(size)/1e6)
	return nil
}

// keyExists words the library's *hcc.KeyExistsError with the flag that
// overrides it; other errors pass unchanged.
func keyExists(err error) error {
	var ke *hcc.KeyExistsError
	if errors.As(err, &ke) {
		return fmt.Errorf("%s exists (pass --force to overwrite it and lose every ciphertext made under it)", ke.Path)
	}
	return err
}
