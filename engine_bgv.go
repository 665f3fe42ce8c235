package hcc

import (
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
)

// bgvAutoSets are the secure sets tried, in order, when a BGV target has no
// Params: the first whose slots suffice and on which the noise model's
// simulation of the compiled circuit succeeds is used.
var bgvAutoSets = []string{"M8191", "M65537"}

// bgvKeygenDefault is the BGV set of GenerateKeysFor without Params: no
// circuit says what depth is needed, so the deepest secure set (AND-depth
// 41, 2048 slots); M8191 is about 30 times faster per gate for circuits of
// AND-depth <= 6.
const bgvKeygenDefault = "M65537"

func init() { register(bgvEngine{}) }

// bgvEngine is packed BGV (backend/bgv): plaintext modulus 2, one circuit
// instance per slot, bit-sliced and levelled (no bootstrapping).
type bgvEngine struct{}

func (bgvEngine) Name() string { return "bgv" }

func (bgvEngine) Doc() string { return "one bit per slot, bit-sliced, levelled" }

func (bgvEngine) ParamSets() []string { return bgv.Names() }

func (bgvEngine) DefaultParams() string { return bgvKeygenDefault }

func (bgvEngine) ParamsHelp() string {
	// The insecure BGV sets are the Toy ones (TestParamsHelpGroups checks
	// it against Params.Secure without building every set for a help text).
	var secure, toy []string
	for _, name := range bgv.Names() {
		if strings.HasPrefix(name, "Toy") {
			toy = append(toy, name)
		} else {
			secure = append(secure, name)
		}
	}
	return "bgv: 128-bit " + fmt.Sprint(secure) + ", insecure with --insecure only " + fmt.Sprint(toy) + "; a program gets the smallest secure set whose AND-depth and slots suffice, " +
		"M8191 (depth 6, 630 slots, ~25 ms per AND, eval key 1.4 MB, <= 330 KB per input bit) else " +
		"M65537 (depth 41, 2048 slots, 0.14-0.7 s per AND as the depth grows, eval key ~94 MB, <= 23 MB per input bit; " +
		"adder64 at depth 7 takes ~1 min); inputs are encrypted at the lowest level at which the noise model's simulation of the circuit succeeds; " +
		"keygen, which sees no circuit, takes " + bgvKeygenDefault
}

func (bgvEngine) scheme(name string, allowInsecure bool) (scheme, error) {
	if name == "" {
		name = bgvKeygenDefault
	}
	s, err := cachedScheme("bgv/"+name, func() (scheme, error) {
		lit, err := bgv.LiteralByName(name)
		if err != nil {
			return nil, err
		}
		// Insecure sets are built here and refused below, by the one policy.
		lit.AllowInsecure = true
		pr, err := bgv.NewParams(lit)
		if err != nil {
			return nil, err
		}
		return &bgvScheme{pr: pr}, nil
	})
	if err != nil {
		return nil, err
	}
	if s.insecure() && !allowInsecure {
		return nil, insecureError(name)
	}
	return s, nil
}

// compile is optimize.ForDepth (the executor's cost and noise grow with the
// AND-depth), then the parameter choice: t.Params, or the first of
// bgvAutoSets with enough slots on which the compiled circuit runs by the
// noise model's simulation, else the last set's error (the node where the
// noise budget runs out and the primes needed against those available).
func (e bgvEngine) compile(c *ir.Circuit, t Target, cfg *compileConfig) (*ir.Circuit, scheme, error) {
	pipe := optimize.ForDepth()
	if cfg.observe != nil {
		summary := func(c *ir.Circuit) string {
			return fmt.Sprintf("%6d nodes, AND-depth %d, %d multiplications", len(c.Nodes), bgv.CircuitDepth(c), bgvMulCount(c))
		}
		cfg.observe("input", summary(c))
		pipe.Observe = func(pass string, c *ir.Circuit) { cfg.observe(pass, summary(c)) }
	}
	d, err := pipe.Run(c)
	if err != nil {
		return nil, nil, fmt.Errorf("compiling %q: %w", c.Name, err)
	}
	if cfg.alt != nil && cfg.alt.NumInputBits() == c.NumInputBits() && cfg.alt.NumOutputBits() == c.NumOutputBits() {
		// The depth style's lowering is not always the better input to
		// ForDepth (a 64x64->128 multiply: 17 from the depth lowering, 15
		// from the size one): keep the lower AND-depth, then the fewer
		// multiplications, so that StyleDepth is never worse than StyleSize.
		pipe.Observe = nil
		alt, err := pipe.Run(cfg.alt)
		if err != nil {
			return nil, nil, fmt.Errorf("compiling %q: %w", c.Name, err)
		}
		da, dd := bgv.CircuitDepth(alt), bgv.CircuitDepth(d)
		if da < dd || da == dd && bgvMulCount(alt) < bgvMulCount(d) {
			if cfg.observe != nil {
				cfg.observe("size-lowering", fmt.Sprintf("%6d nodes, AND-depth %d, %d multiplications (kept: lower than the depth lowering's)", len(alt.Nodes), da, bgvMulCount(alt)))
			}
			d = alt
		}
	}
	instances := max(t.Instances, 1)
	if t.Params != "" {
		s, err := e.scheme(t.Params, t.Insecure)
		if err != nil {
			return nil, nil, err
		}
		level, err := s.(*bgvScheme).pr.LevelForCircuit(d)
		if err != nil {
			return nil, nil, err
		}
		cfg.level.set(level)
		return d, s, nil
	}
	for i, name := range bgvAutoSets {
		s, serr := e.scheme(name, false)
		if serr != nil {
			return nil, nil, serr
		}
		last := i == len(bgvAutoSets)-1
		if s.slots() < instances && !last {
			continue
		}
		var level int
		if level, err = s.(*bgvScheme).pr.LevelForCircuit(d); err == nil || last {
			if err != nil {
				return nil, nil, err
			}
			cfg.level.set(level)
			return d, s, nil
		}
	}
	return nil, nil, err
}

func (bgvEngine) validate(c *ir.Circuit, s scheme, _ Target) error {
	for i := range c.Nodes {
		if n := &c.Nodes[i]; n.Op == ir.OpLUT && len(n.In) > 6 {
			return fmt.Errorf("node %d: LUT of %d inputs (the BGV executor takes up to 6)", i, len(n.In))
		}
	}
	return s.(*bgvScheme).pr.CheckCircuit(c)
}

func (bgvEngine) summary(src, d *ir.Circuit, _ scheme, _ Target) string {
	return fmt.Sprintf("AND-depth %d -> %d (%d multiplications)", bgv.CircuitDepth(src), bgv.CircuitDepth(d), bgvMulCount(d))
}

func (bgvEngine) details(p *Program) string {
	pr := p.scheme.(*bgvScheme).pr
	level, err := p.level.get(func() (int, error) { return pr.LevelForCircuit(p.circuit) })
	if err != nil {
		return fmt.Sprintf("%s: %d slots, AND-depth %d available (%v)", pr.Name(), pr.Slots(), pr.DepthAvailable(), err)
	}
	return fmt.Sprintf("%s: %d slots, AND-depth %d available, inputs encrypted at level %d of %d", pr.Name(), pr.Slots(), pr.DepthAvailable(), level, pr.MaxLevel())
}

func (bgvEngine) clientNeedsPasses() bool { return true }

func (bgvEngine) cost(scheme, Target) ir.Cost {
	return ir.Cost{Name: "multiplications", Of: bgv.MulCost}
}

func (e bgvEngine) evalCostName(s scheme, t Target) string { return e.cost(s, t).Name }

func (bgvEngine) settle(_ scheme, t Target) Target { return t }

// bgvMulCount is the number of ciphertext multiplications the executor runs on c.
func bgvMulCount(c *ir.Circuit) int {
	n := 0
	for i := range c.Nodes {
		n += bgv.MulCost(c.Nodes[i].Op)
	}
	return n
}

// bgvScheme is a validated BGV parameter set.
type bgvScheme struct{ pr *bgv.Params }

func (s *bgvScheme) name() string   { return s.pr.Name() }
func (s *bgvScheme) insecure() bool { return !s.pr.Secure() }

// warning is empty: every secure BGV set meets the 128-bit target.
func (s *bgvScheme) warning() string { return "" }
func (s *bgvScheme) slots() int      { return s.pr.Slots() }

// newKeys draws a secret key and the evaluation keys the bit-sliced
// executor needs (relinearization only: it never rotates).
func (s *bgvScheme) newKeys() (secretKey, serverKey, error) {
	kg := bgv.NewKeyGenerator(s.pr, bgv.NewSampler())
	sk := kg.GenSecretKey()
	client, err := newBGVSecret(s, sk)
	if err != nil {
		return nil, nil, err
	}
	return client, &bgvServer{s: s, keys: bgv.NewEvaluationKeySet(kg.GenRelinKey(sk))}, nil
}

func (s *bgvScheme) readSecretKey(body []byte) (secretKey, error) {
	sk, err := s.pr.ReadSecretKey(body)
	if err != nil {
		return nil, err
	}
	return newBGVSecret(s, sk)
}

func (s *bgvScheme) readServerKey(body []byte) (serverKey, error) {
	keys, err := s.pr.ReadEvaluationKeys(body)
	if err != nil {
		return nil, err
	}
	return &bgvServer{s: s, keys: keys}, nil
}

// encode switches ciphertexts above the lowest level among cts down (on
// copies): a file holds ciphertexts of one size.
func (s *bgvScheme) encode(cts []backend.Ciphertext) (int, [][]byte, error) {
	pr := s.pr
	level := pr.MaxLevel()
	list := make([]*bgv.Ciphertext, len(cts))
	for i, ct := range cts {
		x, ok := ct.(*bgv.Ciphertext)
		if !ok {
			return 0, nil, fmt.Errorf("internal error: ciphertext %d is %T, not BGV", i, ct)
		}
		list[i] = x
		level = min(level, x.Level())
	}
	ev := bgv.NewEvaluator(pr, nil)
	sc := pr.NewScratch()
	size := pr.CiphertextSize(level)
	out := make([][]byte, len(list))
	for i, x := range list {
		if x.Level() > level {
			x = pr.CopyCiphertext(x)
			if err := ev.SwitchToLevel(x, level, sc); err != nil {
				return 0, nil, fmt.Errorf("ciphertext %d: %w", i, err)
			}
		}
		var err error
		if out[i], err = pr.AppendCiphertext(make([]byte, 0, size), x); err != nil {
			return 0, nil, fmt.Errorf("ciphertext %d: %w", i, err)
		}
	}
	return size, out, nil
}

func (s *bgvScheme) decode(data []byte) (backend.Ciphertext, error) {
	return s.pr.DecodeCiphertext(data)
}

// bgvSecret is the secret-key side of BGV: encoding, encryption, decryption.
type bgvSecret struct {
	s   *bgvScheme
	enc *bgv.Encoder
	sk  *bgv.SecretKey
}

func newBGVSecret(s *bgvScheme, sk *bgv.SecretKey) (*bgvSecret, error) {
	enc, err := bgv.NewEncoder(s.pr)
	if err != nil {
		return nil, err
	}
	return &bgvSecret{s: s, enc: enc, sk: sk}, nil
}

func (k *bgvSecret) marshal() ([]byte, error) { return k.s.pr.MarshalSecretKey(k.sk) }

// encrypt encrypts the pack at the lowest level at which the noise
// model's simulation of p's compiled circuit succeeds (computed once per
// program). Slot j of ciphertext i holds bit i of instance j; a replicated
// instance fills every slot, else slots past the last instance hold zeros.
func (k *bgvSecret) encrypt(p *Program, pack [][]bool, replicate bool) ([]backend.Ciphertext, error) {
	if err := p.checkInsecure("encrypt"); err != nil {
		return nil, err
	}
	level, err := p.level.get(func() (int, error) { return k.s.pr.LevelForCircuit(p.circuit) })
	if err != nil {
		return nil, err
	}
	return k.encryptAt(pack, replicate, level)
}

// encryptAt encrypts at level; bits are encrypted in parallel (one sampler
// and encryptor per goroutine).
func (k *bgvSecret) encryptAt(pack [][]bool, replicate bool, level int) ([]backend.Ciphertext, error) {
	pr := k.s.pr
	slots := pr.Slots()
	if len(pack) > slots {
		return nil, fmt.Errorf("%d instances do not fit in the %d slots of %s", len(pack), slots, pr.Name())
	}
	out := make([]backend.Ciphertext, len(pack[0]))
	err := parallelFor(len(out), func() func(i int) error {
		en := bgv.NewSymmetricEncryptor(pr, k.sk, bgv.NewSampler())
		bits := make([]uint8, slots)
		pt := bgv.NewBinaryPoly(pr.N())
		return func(i int) error {
			for j := range bits {
				bits[j] = 0
				src := pack[0]
				if !replicate {
					if j >= len(pack) {
						continue
					}
					src = pack[j]
				}
				if src[i] {
					bits[j] = 1
				}
			}
			if err := k.enc.EncodeBits(bits, pt); err != nil {
				return err
			}
			ct, err := en.EncryptAtLevel(pt, level)
			out[i] = ct
			return err
		}
	})
	return out, err
}

// decrypt returns the output bits of each instance: with n == 0 (one
// input set replicated) the one set the slots agree on, an error if any
// slot differs; else the first n slots.
func (k *bgvSecret) decrypt(cts []backend.Ciphertext, n int) ([][]bool, error) {
	pr := k.s.pr
	out := make([][]bool, max(n, 1))
	for j := range out {
		out[j] = make([]bool, len(cts))
	}
	err := parallelFor(len(cts), func() func(i int) error {
		de := bgv.NewDecryptor(pr, k.sk)
		sc := pr.NewScratch()
		pt := bgv.NewBinaryPoly(pr.N())
		slots := make([]uint8, pr.Slots())
		return func(i int) error {
			ct, ok := cts[i].(*bgv.Ciphertext)
			if !ok {
				return fmt.Errorf("output bit %d: not a BGV ciphertext (%T)", i, cts[i])
			}
			de.DecryptTo(ct, pt, sc)
			if err := k.enc.DecodeBits(pt, slots); err != nil {
				return fmt.Errorf("output bit %d: %w", i, err)
			}
			if n == 0 {
				for j, b := range slots {
					if b != slots[0] {
						return fmt.Errorf("output bit %d differs between slot 0 and slot %d, which hold the same inputs (noise overflow?)", i, j)
					}
				}
			}
			for j := range out {
				out[j][i] = slots[j] == 1 // distinct i per call: no two goroutines write one element
			}
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// bgvServer is a BGV evaluation key with its evaluator.
type bgvServer struct {
	s    *bgvScheme
	keys *bgv.EvaluationKeySet
	once sync.Once
	ev   *bgv.Evaluator
}

func (k *bgvServer) marshal() ([]byte, error) { return k.s.pr.MarshalEvaluationKeys(k.keys) }

func (k *bgvServer) evaluatorOnce() *bgv.Evaluator {
	k.once.Do(func() { k.ev = bgv.NewEvaluator(k.s.pr, k.keys) })
	return k.ev
}

func (k *bgvServer) evaluator(*Program) (backend.Evaluator, error) {
	return bgv.NewBackend(k.evaluatorOnce()), nil
}

// check simulates the executor's noise bookkeeping on these very inputs: a
// circuit the chain cannot carry fails before any work, at the node where
// the run would.
func (k *bgvServer) check(p *Program, in []backend.Ciphertext) error {
	cts, err := concreteCiphertexts[*bgv.Ciphertext](in, "internal error: input", "BGV")
	if err != nil {
		return err
	}
	return k.s.pr.CheckInputs(p.circuit, cts)
}

// finish switches the outputs to level 0 (the smallest encoding;
// decryption needs nothing more).
func (k *bgvServer) finish(outs []backend.Ciphertext) ([]backend.Ciphertext, error) {
	ev := k.evaluatorOnce()
	sc := k.s.pr.NewScratch()
	res := make([]backend.Ciphertext, len(outs))
	for i, ct := range outs {
		x := k.s.pr.CopyCiphertext(ct.(*bgv.Ciphertext))
		if err := ev.SwitchToLevel(x, 0, sc); err != nil {
			return nil, fmt.Errorf("output bit %d: %w", i, err)
		}
		res[i] = x
	}
	return res, nil
}

// parallelFor calls f(i) for i in [0, n) on GOMAXPROCS goroutines, each
// with the state newWorker builds, and returns the first error (by index).
func parallelFor(n int, newWorker func() func(i int) error) error {
	workers := min(goruntime.GOMAXPROCS(0), n)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newWorker()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = f(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
