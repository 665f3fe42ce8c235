package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
)

// defaultParams is the parameter set of keygen and run without --params:
// STD128_LOWFAIL_T, chosen by failure probability. Both it and STD128_T
// are 128-bit sets; STD128_T bootstraps ~25% faster but its AND fails with
// probability ~2^-84 and the LUT mapper's functions up to the 2^-40 bound,
// so a mapped aes_128 block (20810 bootstraps, 11099 of them LUTs) is
// predicted to fail with probability 2^-29. STD128_LOWFAIL_T keeps every
// function the mapper may emit below 2^-99 (up to six inputs, weights
// |w| <= 2, fhew.Params.SumFailureLog2) except wide PARITY nodes, which
// --parity-failure bounds (2^-80 by default: a mapped aes_128 block 2^-71.5,
// fhew.Params.CircuitFailure, printed by eval and run).
const defaultParams = "STD128_LOWFAIL_T"

// workflowFlags are the flags of keygen, encrypt, eval, decrypt and run.
type workflowFlags struct {
	backend  string
	params   string
	insecure bool
	key      string // secret key file
	evalKey  string // evaluation key file
	threads  int
	check    bool
	batch    string // --batch FILE (bgv): one input set per line and slot
	// parityFailure is --parity-failure: log2 of the per-bootstrap failure
	// bound that sets FHEW's PARITY width (fhewTarget).
	parityFailure float64
}

// parityFailureFlag registers --parity-failure (compile, eval and run for
// fhew; keygen does not map circuits).
func (w *workflowFlags) parityFailureFlag(fs *flag.FlagSet) {
	fs.Float64Var(&w.parityFailure, "parity-failure", fhew.DefaultParityFailureLog2,
		"fhew: PARITY nodes are as wide as a predicted failure of at most 2^`LOG2` per bootstrap allows (LUTs keep 2^-40); "+
			"higher saves bootstraps, lower is safer. eval must get the value run or compile got to map the same way")
}

// fhewTarget is the LUT capability compile, eval and run map to for p. They
// must agree: a ciphertext file names the source circuit, and eval re-derives
// the mapping from it and these flags alone.
func (w *workflowFlags) fhewTarget(p fhew.Params) (fhew.LUTTarget, error) {
	if !(w.parityFailure < 0) {
		return fhew.LUTTarget{}, fmt.Errorf("--parity-failure %v: want log2 of a probability, below 0", w.parityFailure)
	}
	return fhew.NewLUTTarget(p, fhew.DefaultLUTFailureLog2).WithParityFailure(w.parityFailure), nil
}

func (w *workflowFlags) backendFlags(fs *flag.FlagSet) {
	fs.StringVar(&w.backend, "backend", "fhew", "encrypted `backend`: fhew (one bit per ciphertext, bootstrapped gates) or bgv (one bit per slot, bit-sliced, levelled)")
	fs.StringVar(&w.params, "params", "", "parameter `set`; fhew: "+fmt.Sprint(fhew.Names())+", default "+defaultParams+
		"; bgv: "+fmt.Sprint(bgv.Names())+", "+bgvParamsHelp)
	fs.BoolVar(&w.insecure, "insecure", false, "allow the insecure Toy parameter sets (tests and demos only)")
}

// fhewParams resolves the --backend, --params and --insecure flags.
func (w *workflowFlags) fhewParams() (fhew.Params, error) {
	if w.backend != "fhew" {
		return fhew.Params{}, fmt.Errorf("backend %q has no encrypted workflow (available: fhew, bgv)", w.backend)
	}
	name := w.params
	if name == "" {
		name = defaultParams
	}
	p, err := fhew.ParamsByName(name, true)
	if err != nil {
		return fhew.Params{}, err
	}
	// Checked here, not only by fhew, so that tests see the same refusal.
	if p.Literal().Insecure && !w.insecure {
		return fhew.Params{}, fmt.Errorf("parameter set %s is insecure (for tests only); pass --insecure to use it anyway", name)
	}
	return p, nil
}

// keyIDOf derives the key id of an evaluation key from its encoding.
func keyIDOf(evalKey []byte) keyID {
	sum := sha256.Sum256(evalKey)
	var id keyID
	copy(id[:], sum[:])
	return id
}

// newFHEWKeys draws a fresh key pair for p.
func newFHEWKeys(p fhew.Params) (*fhew.SecretKey, *fhew.EvaluationKey, error) {
	sk, err := fhew.NewSecretKey(p)
	if err != nil {
		return nil, nil, err
	}
	ek, err := fhew.GenEvaluationKey(sk)
	if err != nil {
		return nil, nil, err
	}
	return sk, ek, nil
}

func keygenCommand() *command {
	w := &workflowFlags{}
	return &command{
		name: "keygen", doc: "generate a key pair: DIR/secret.key (client only) and DIR/eval.key (for the server)",
		run: func(e *cmdEnv) error { return runKeygen(e, w) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			w.backendFlags(fs)
			outFlag(fs, e, "write the keys to directory `DIR` (created if missing)")
		},
	}
}

func runKeygen(e *cmdEnv, w *workflowFlags) error {
	if e.out == "" {
		return fmt.Errorf("missing -o DIR")
	}
	t0 := time.Now()
	params, skData, ekData, err := w.genKeys()
	if err != nil {
		return err
	}
	elapsed := time.Since(t0)
	id := keyIDOf(ekData)
	if err := os.MkdirAll(e.out, 0o700); err != nil {
		return err
	}
	h := fileHeader{backend: w.backend, params: params, key: id}
	secret := filepath.Join(e.out, "secret.key")
	h.kind = kindSecretKey
	if err := writeFileMode(secret, (&keyFile{fileHeader: h, body: skData}).marshal(), 0o600); err != nil {
		return err
	}
	eval := filepath.Join(e.out, "eval.key")
	h.kind = kindEvalKey
	evalData := (&keyFile{fileHeader: h, body: ekData}).marshal()
	if err := writeFileMode(eval, evalData, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "key %v (%s, %s backend) generated in %v\n", id, params, w.backend, elapsed.Round(time.Millisecond))
	fmt.Fprintf(e.stdout, "wrote %s (keep it private) and %s (%.1f MB, for the evaluator)\n", secret, eval, float64(len(evalData))/1e6)
	return nil
}

// genKeys draws a key pair for the --backend and --params flags and returns
// the parameter set's name and the backend's encodings of both keys.
func (w *workflowFlags) genKeys() (params string, secret, eval []byte, err error) {
	if w.backend == "bgv" {
		return w.genBGVKeys()
	}
	p, err := w.fhewParams()
	if err != nil {
		return "", nil, nil, err
	}
	sk, ek, err := newFHEWKeys(p)
	if err != nil {
		return "", nil, nil, err
	}
	if secret, err = sk.MarshalBinary(); err != nil {
		return "", nil, nil, err
	}
	if eval, err = ek.MarshalBinary(); err != nil {
		return "", nil, nil, err
	}
	return p.Name(), secret, eval, nil
}

// writeFileMode writes data to path with the given permissions, also when
// the file already exists with other permissions.
func writeFileMode(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ctCodec encodes and decodes one backend's ciphertexts for ctFile.
type ctCodec interface {
	// slots is the number of instances one ciphertext carries.
	slots() int
	// encode returns the encodings of cts, all of one size.
	encode(cts []backend.Ciphertext) (size int, out [][]byte, err error)
	decode(data []byte) (backend.Ciphertext, error)
}

// clientKey is a loaded secret key: it encrypts input sets and decrypts
// outputs.
type clientKey interface {
	ctCodec
	// encrypt returns one ciphertext per input bit of the instances' packed
	// input bits of c; a single instance goes into every slot.
	encrypt(c *ir.Circuit, instances [][]bool) ([]backend.Ciphertext, error)
	// decrypt returns the output bits of each instance (count as in
	// ctFile.instances: 0 is one input set, whose slots must agree).
	decrypt(cts []backend.Ciphertext, instances int) ([][]bool, error)
}

// serverKey is a loaded evaluation key: it compiles and runs circuits on
// encrypted inputs, reporting on stderr.
type serverKey interface {
	ctCodec
	// compile runs the backend's passes on c and checks that the result
	// can run under this key (BGV: its depth against the chain). eval calls
	// it before decoding any ciphertext, so that a circuit that cannot run
	// fails at once.
	compile(e *cmdEnv, c *ir.Circuit) (*ir.Circuit, error)
	// eval runs a compiled circuit.
	eval(e *cmdEnv, w *workflowFlags, d *ir.Circuit, in []backend.Ciphertext) ([]backend.Ciphertext, error)
}

// fhewCodec encodes FHEW ciphertexts (fhew.AppendCiphertext).
type fhewCodec struct{ p fhew.Params }

func (fhewCodec) slots() int { return 1 }

func (c fhewCodec) encode(cts []backend.Ciphertext) (int, [][]byte, error) {
	size := fhew.CiphertextSize(c.p)
	out := make([][]byte, len(cts))
	for i, ct := range cts {
		x, ok := ct.(*fhew.Ciphertext)
		if !ok {
			return 0, nil, fmt.Errorf("internal error: ciphertext %d is %T, not FHEW", i, ct)
		}
		out[i] = fhew.AppendCiphertext(make([]byte, 0, size), x)
	}
	return size, out, nil
}

func (c fhewCodec) decode(data []byte) (backend.Ciphertext, error) {
	return fhew.DecodeCiphertext(c.p, data)
}

// fhewClient is an FHEW secret key.
type fhewClient struct {
	fhewCodec
	sk *fhew.SecretKey
}

func (k fhewClient) encrypt(_ *ir.Circuit, instances [][]bool) ([]backend.Ciphertext, error) {
	if len(instances) != 1 {
		return nil, fmt.Errorf("FHEW ciphertexts hold one instance; --batch needs --backend bgv")
	}
	enc, err := fhew.NewEncryptor(k.sk)
	if err != nil {
		return nil, err
	}
	return enc.EncryptBits(instances[0]), nil
}

func (k fhewClient) decrypt(cts []backend.Ciphertext, instances int) ([][]bool, error) {
	if instances > 1 {
		return nil, fmt.Errorf("FHEW ciphertexts hold one instance, the file says %d", instances)
	}
	bits, err := k.sk.DecryptBits(cts)
	if err != nil {
		return nil, err
	}
	return [][]bool{bits}, nil
}

// fhewServer is an FHEW evaluation key with its bootstrapping backend.
type fhewServer struct {
	fhewCodec
	be *fhew.Backend
}

func (s fhewServer) compile(e *cmdEnv, c *ir.Circuit) (*ir.Circuit, error) {
	return compileFHEWReport(e, c, s.be)
}

func (s fhewServer) eval(e *cmdEnv, w *workflowFlags, d *ir.Circuit, in []backend.Ciphertext) ([]backend.Ciphertext, error) {
	return runFHEW(e, w, d, s.be, in)
}

// loadSecretKey reads a secret key file (--key) of any backend. A key made
// with --insecure stays usable: the choice was made at keygen.
func loadSecretKey(path string) (clientKey, *keyFile, error) {
	if path == "" {
		return nil, nil, fmt.Errorf("missing --key DIR/secret.key")
	}
	kf, err := readKeyFile(path, kindSecretKey)
	if err != nil {
		return nil, nil, err
	}
	name := filepath.Base(path)
	switch kf.backend {
	case "fhew":
		p, err := fhew.ParamsByName(kf.params, true)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		sk, err := fhew.ReadSecretKey(p, bytes.NewReader(kf.body))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return fhewClient{fhewCodec{p}, sk}, kf, nil
	case "bgv":
		k, err := readBGVSecretKey(kf)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return k, kf, nil
	}
	return nil, nil, fmt.Errorf("%s is a key for backend %q, which has no encrypted workflow", name, kf.backend)
}

// loadEvalKey reads an evaluation key file (--eval-key) of any backend and
// builds its evaluator; an FHEW backend maps to w.fhewTarget.
func loadEvalKey(path string, w *workflowFlags) (serverKey, *keyFile, error) {
	if path == "" {
		return nil, nil, fmt.Errorf("missing --eval-key DIR/eval.key")
	}
	kf, err := readKeyFile(path, kindEvalKey)
	if err != nil {
		return nil, nil, err
	}
	name := filepath.Base(path)
	if keyIDOf(kf.body) != kf.key {
		return nil, nil, fmt.Errorf("%s: key id %v does not match its key material", name, kf.key)
	}
	switch kf.backend {
	case "fhew":
		p, err := fhew.ParamsByName(kf.params, true)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		ek, err := fhew.ReadEvaluationKey(p, bytes.NewReader(kf.body))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		ev, err := fhew.NewEvaluator(p, ek)
		if err != nil {
			return nil, nil, err
		}
		target, err := w.fhewTarget(p)
		if err != nil {
			return nil, nil, err
		}
		return fhewServer{fhewCodec{p}, fhew.NewBackendWithTarget(ev, target)}, kf, nil
	case "bgv":
		s, err := readBGVEvalKey(kf)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return s, kf, nil
	}
	return nil, nil, fmt.Errorf("%s is a key for backend %q, which has no encrypted workflow", name, kf.backend)
}
