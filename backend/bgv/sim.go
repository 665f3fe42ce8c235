package bgv

import (
	"fmt"

	"github.com/hcc-fhe/hcc/ir"
)

// The noise and level rules of the Evaluator's operations, as functions of
// NoiseState: the Evaluator's kernels take their results' levels and
// estimates from them, and Simulate runs them over a circuit (through the
// executor's own gate expansions, evalGate) without any ciphertext math.
// The simulation therefore predicts exactly where a run refuses a product,
// and the level and estimate of every output (TestSimulateMatchesRun).

// NoiseState is what the noise model knows of a ciphertext: its level and
// its noise estimate.
type NoiseState struct {
	Level int
	Noise NoiseEstimate
}

// State returns ct's level and noise estimate.
func (ct *Ciphertext) State() NoiseState { return NoiseState{Level: ct.Level(), Noise: ct.Noise} }

// addState is a sum (Evaluator.Add): the higher operand is switched down
// to the lower level first.
func (pr *Params) addState(a, b NoiseState) NoiseState {
	for a.Level > b.Level {
		a.Noise, a.Level = pr.dropNoise(a.Noise, a.Level), a.Level-1
	}
	for b.Level > a.Level {
		b.Noise, b.Level = pr.dropNoise(b.Noise, b.Level), b.Level-1
	}
	return NoiseState{Level: a.Level, Noise: addNoise(a.Noise, b.Noise)}
}

// addOneState is a + 1 (Evaluator.AddOne).
func addOneState(a NoiseState) NoiseState {
	a.Noise = a.Noise.withConstant()
	return a
}

// constState is the trivial encryption of v at the top level
// (Evaluator.SetConstant).
func (pr *Params) constState(v bool) NoiseState {
	st := NoiseState{Level: pr.MaxLevel()}
	if v {
		st.Noise = st.Noise.withConstant()
	}
	return st
}

// mulState is a relinearized product (Evaluator.Mul) after the noise
// policy's switches (mulPlan); the error wraps ErrNoiseBudget if the
// product would not decrypt, and the state is then the refused product's.
func (pr *Params) mulState(a, b NoiseState, square bool) (NoiseState, error) {
	t, noise, ok := pr.mulPlan(a.Noise, a.Level, b.Noise, b.Level, square)
	st := NoiseState{Level: t, Noise: noise}
	if !ok {
		return st, fmt.Errorf("bgv mul: product noise 2^%.1f at level %d (log2 Q = %.1f): %w",
			pr.boundOf(noise), t, pr.logQ(t), ErrNoiseBudget)
	}
	return st, nil
}

// decrypts reports whether a ciphertext of state s decrypts by the
// estimate, with mulPlan's margin (bound two bits below log2 Q_t).
func (pr *Params) decrypts(s NoiseState) bool {
	return pr.boundOf(s.Noise) < pr.logQ(s.Level)-2
}

// FreshState is the state of a fresh secret-key encryption at level t (as
// hcc's client encrypts; public-key encryptions are noisier, see
// CheckInputs): exactly the state of the Encryptor's ciphertexts
// (EncryptAtLevel), so that CheckInputs on them is CheckCircuitAt(c, t),
// and LevelForCircuit's level suffices for them. All fresh encryptions
// share one ancestry bit, so that every sum and product of them is taken
// as sharing noise (freshNoise says why the bits are not distinct).
func (pr *Params) FreshState(t int) NoiseState {
	return NoiseState{Level: t, Noise: pr.freshNoise(false)}
}

// simArith is gateArith on noise states; failed is the state of the last
// refused product.
type simArith struct {
	pr     *Params
	t0     NoiseState
	monos  [64]NoiseState
	failed NoiseState
}

func (s *simArith) add(a, b, out *NoiseState) error { *out = s.pr.addState(*a, *b); return nil }
func (s *simArith) addOne(a, out *NoiseState)       { *out = addOneState(*a) }
func (s *simArith) mul(a, b, out *NoiseState) error {
	st, err := s.pr.mulState(*a, *b, a == b)
	if err != nil {
		s.failed = st
		return err
	}
	*out = st
	return nil
}
func (s *simArith) constant(v bool, out *NoiseState) { *out = s.pr.constState(v) }
func (s *simArith) copy(a, out *NoiseState)          { *out = *a }
func (s *simArith) temp() *NoiseState                { return &s.t0 }
func (s *simArith) mono(m uint64) *NoiseState        { return &s.monos[m] }

// NoiseError reports where a circuit runs out of noise budget by the
// noise model (Simulate). It wraps ErrDepth and the operation's error
// (ErrNoiseBudget).
type NoiseError struct {
	Circuit, Params string
	// Node, Op and Pos locate the node, as runtime.NodeError does.
	Node ir.NodeID
	Op   ir.Op
	Pos  string
	// InputLevel is the inputs' (highest) level: InputLevel+1 primes.
	InputLevel int
	// Level, Bound and LogQ are the failing value's level, log2 of its
	// noise bound and log2 Q at that level; it needs Bound < LogQ - 2.
	Level       int
	Bound, LogQ float64
	// Needed is the number of primes with which fresh inputs run the
	// circuit by the noise model: the chain's, then copies of its top
	// prime (primesNeeded); 0 if more than maxExtraPrimes copies.
	Needed int
	Err    error
}

// ShortBits is how many bits of modulus the failing value lacks.
func (e *NoiseError) ShortBits() float64 { return e.Bound - (e.LogQ - 2) }

func (e *NoiseError) Error() string {
	needs := fmt.Sprintf("more than %d primes", e.InputLevel+1+maxExtraPrimes)
	if e.Needed > 0 {
		needs = fmt.Sprintf("%d primes", e.Needed)
	}
	where := fmt.Sprintf("node %d (%v", e.Node, e.Op)
	if e.Pos != "" {
		where += ", " + e.Pos
	}
	return fmt.Sprintf("circuit %q needs %s by the noise model, %s has %d for inputs at level %d: %s) is %.1f bits short: %v",
		e.Circuit, needs, e.Params, e.InputLevel+1, e.InputLevel, where, e.ShortBits(), e.Err)
}

// Unwrap returns ErrDepth and the failing operation's error.
func (e *NoiseError) Unwrap() []error { return []error{ErrDepth, e.Err} }

// maxExtraPrimes bounds primesNeeded's search.
const maxExtraPrimes = 64

// primesNeeded returns the smallest number of primes, more than have, with
// which fresh inputs (FreshState) at the top run c by the noise model: the
// chain's own primes first, then the chain extended by copies of its top
// prime (noiseOnly); 0 if maxExtraPrimes copies do not suffice.
func (pr *Params) primesNeeded(c *ir.Circuit, have int) int {
	for k := have + 1; k <= len(pr.q)+maxExtraPrimes; k++ {
		ext := pr
		if k > len(pr.q) {
			ext = pr.noiseOnly(k - len(pr.q))
		}
		if _, err := ext.simulate(c, ext.freshInputs(c, k-1), false); err == nil {
			return k
		}
	}
	return 0
}

// noiseOnly returns a copy of pr for the noise model only (no rings, no
// transforms: any ciphertext operation on it panics) whose chain has extra
// more copies of the top prime; their key-switching noise is the top
// level's (it stays far below the rounding floor).
func (pr *Params) noiseOnly(extra int) *Params {
	ext := &Params{lit: pr.lit, m: pr.m, n: pr.n, d: pr.d, slots: pr.slots, p: pr.p,
		q: append([]uint64(nil), pr.q...), ksLog: append([]float64(nil), pr.ksLog...)}
	top := len(pr.q) - 1
	for range extra {
		ext.q = append(ext.q, pr.q[top])
		ext.ksLog = append(ext.ksLog, pr.ksLog[top])
	}
	return ext
}

// Simulate runs the executor's noise and level bookkeeping over c, without
// ciphertexts: inputs[k] is the state of input bit k (the layout of
// ir.Circuit.EvalBits). It returns the state of every output bit, which a
// run on inputs of exactly these states gives its output ciphertexts. It
// fails with a *NoiseError at the first node (in node order) whose product
// the executor would refuse, or whose value would not decrypt by the
// estimate (the executor only checks products: a sum past the modulus
// would silently corrupt the run).
func (pr *Params) Simulate(c *ir.Circuit, inputs []NoiseState) ([]NoiseState, error) {
	return pr.simulate(c, inputs, true)
}

// simulate is Simulate; count says whether a *NoiseError counts the primes
// needed (primesNeeded, which simulates without counting).
func (pr *Params) simulate(c *ir.Circuit, inputs []NoiseState, count bool) ([]NoiseState, error) {
	st, err := pr.nodeStates(c, inputs, count)
	if err != nil {
		return nil, err
	}
	var outs []NoiseState
	for _, b := range c.Outputs {
		for _, id := range b.Bits {
			outs = append(outs, st[id])
		}
	}
	return outs, nil
}

// nodeStates is simulate's run: the state of every node of c.
func (pr *Params) nodeStates(c *ir.Circuit, inputs []NoiseState, count bool) ([]NoiseState, error) {
	if len(inputs) != c.NumInputBits() {
		return nil, fmt.Errorf("circuit %q takes %d input bits, got %d states", c.Name, c.NumInputBits(), len(inputs))
	}
	offs := make([]int, len(c.Inputs))
	top := 0
	for i := range c.Inputs {
		if i > 0 {
			offs[i] = offs[i-1] + len(c.Inputs[i-1].Bits)
		}
	}
	for _, s := range inputs {
		top = max(top, s.Level)
	}
	st := make([]NoiseState, len(c.Nodes))
	sa := &simArith{pr: pr}
	var buf [max(ir.MaxLUTInputs, ir.MaxParityInputs)]*NoiseState
	for i := range c.Nodes {
		n := &c.Nodes[i]
		var err error
		switch n.Op {
		case ir.OpInput:
			st[i] = inputs[offs[n.Bus]+int(n.Bit)]
			continue
		case ir.OpConst0, ir.OpConst1:
			st[i] = pr.constState(n.Op == ir.OpConst1)
			continue
		}
		in := buf[:len(n.In)]
		for j, f := range n.In {
			in[j] = &st[f]
		}
		fail := st[i]
		if err = evalGate[*NoiseState](sa, n, in, &st[i]); err != nil {
			fail = sa.failed
		} else if fail = st[i]; !pr.decrypts(fail) {
			err = fmt.Errorf("%v: noise 2^%.1f at level %d (log2 Q = %.1f): %w",
				n.Op, pr.boundOf(fail.Noise), fail.Level, pr.logQ(fail.Level), ErrNoiseBudget)
		}
		if err != nil {
			ne := &NoiseError{Circuit: c.Name, Params: pr.Name(), Node: ir.NodeID(i), Op: n.Op, Pos: n.Pos,
				InputLevel: top, Level: fail.Level, Bound: pr.boundOf(fail.Noise), LogQ: pr.logQ(fail.Level), Err: err}
			if count {
				ne.Needed = pr.primesNeeded(c, top+1)
			}
			return nil, ne
		}
	}
	return st, nil
}

// CheckCircuit returns nil if c, on fresh inputs at the top level, runs to
// the end by the noise model (Simulate), else the *NoiseError.
func (pr *Params) CheckCircuit(c *ir.Circuit) error { return pr.CheckCircuitAt(c, pr.MaxLevel()) }

// CheckCircuitAt is CheckCircuit for fresh inputs at level t (FreshState).
func (pr *Params) CheckCircuitAt(c *ir.Circuit, t int) error {
	_, err := pr.Simulate(c, pr.freshInputs(c, t))
	return err
}

// CheckInputs is CheckCircuit for the given input ciphertexts: exact for a
// run on them.
func (pr *Params) CheckInputs(c *ir.Circuit, in []*Ciphertext) error {
	st := make([]NoiseState, len(in))
	for i, ct := range in {
		st[i] = ct.State()
	}
	_, err := pr.Simulate(c, st)
	return err
}

func (pr *Params) freshInputs(c *ir.Circuit, t int) []NoiseState {
	in := make([]NoiseState, c.NumInputBits())
	for i := range in {
		in[i] = pr.FreshState(t)
	}
	return in
}

// LevelForCircuit returns the lowest level at which fresh inputs run c to
// the end by the noise model (CheckCircuitAt), the top level's *NoiseError
// if none does. Inputs encrypted there make every product cheaper and the
// ciphertexts smaller. Secret-key encryptions at that level (hcc's client)
// pass CheckInputs, since their states are FreshState's; public-key ones
// are noisier and often need a level more (check them with CheckInputs).
func (pr *Params) LevelForCircuit(c *ir.Circuit) (int, error) {
	if err := pr.CheckCircuit(c); err != nil {
		return 0, err
	}
	for t := 0; t < pr.MaxLevel(); t++ {
		if _, err := pr.simulate(c, pr.freshInputs(c, t), false); err == nil {
			return t, nil
		}
	}
	return pr.MaxLevel(), nil
}
