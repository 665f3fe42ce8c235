package fhew

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// This file adapts the gate API to backend.Evaluator / backend.Worker (what
// the runtime schedules), answers the optimizer's LUT and cost questions
// (LUTTarget), and gives the client side bit-level Encrypt/Decrypt helpers.

// DefaultLUTFailureLog2 is the failure bound LUTTarget uses unless told
// otherwise: a multi-input function is offered to the optimizer only if
// one evaluation decrypts wrongly with probability at most 2^-40. A LUT's
// noise grows with Σ w_i² (relative to its margin, parity.go), so on sets
// with little noise margin (STD128_T: MAJ5 on 1,1,1,1,1 at 2^-47 passes)
// only the cheap-weight functions pass, while the low-failure sets keep
// every k <= 6 function. The bound is per bootstrap and LUTs are a small
// part of a mapped circuit; PARITY nodes, which can be most of it, have a
// tighter default bound of their own (DefaultParityFailureLog2). Native
// gates are always evaluated, whatever their failure probability: they are
// the circuit.
const DefaultLUTFailureLog2 = -40

// DefaultParityFailureLog2 is the per-bootstrap failure bound that sets the
// PARITY width (LUTTarget.MaxParityInputs) unless WithParityFailure says
// otherwise; NewLUTTarget uses the tighter of it and its own bound. Wide
// parities are both the noisiest bootstraps and most of a mapped circuit:
// under the LUT bound 2^-40, aes_128 on STD128_LOWFAIL_T maps to 14649
// bootstraps with parities of up to K = 64 inputs (2^-48 each), predicted
// to fail once in 2^41 blocks (CircuitFailure; 2^-101 before parity
// mapping). At 2^-80, K = 36 and aes_128 takes 15750 bootstraps (still
// below issue 4's 17288) at 2^-72 per block: reliability is the default,
// and a caller that wants the last 7% of bootstraps asks for it. On
// STD128_T it leaves parities of 3 inputs (7 at 2^-40).
const DefaultParityFailureLog2 = -80

// LUTTarget answers which k-input functions one bootstrap evaluates within a
// failure bound (optimize.LUTTarget, backend.LUTCapability) and what each
// native op costs in bootstraps. It is a small value, safe to copy and share.
type LUTTarget struct {
	p       Params
	maxFail float64 // log2 of the largest accepted failure probability
	maxK    int
	maxPar  int     // widest PARITY within parFail
	parFail float64 // log2 of the PARITY failure bound
}

// NewLUTTarget returns the LUT capability of p for functions whose predicted
// failure probability (SumFailureLog2 of their weights) is at most
// 2^maxFailureLog2, and PARITY nodes within the tighter of that bound and
// DefaultParityFailureLog2 (WithParityFailure overrides it).
func NewLUTTarget(p Params, maxFailureLog2 float64) LUTTarget {
	t := LUTTarget{p: p, maxFail: maxFailureLog2}.WithParityFailure(min(maxFailureLog2, DefaultParityFailureLog2))
	// The cheapest way for a k-input function to depend on all its inputs is
	// weight 1 on each (norm k), and a symmetric h(Σ x_i mod P) that is not
	// constant does depend on all of them; so the widest useful k is the
	// largest with an all-ones weight vector inside the bound.
	for k := 1; k <= MaxLUTInputs; k++ {
		ones := make([]int, k)
		for i := range ones {
			ones[i] = 1
		}
		if p.SumFailureLog2(ones) <= maxFailureLog2 {
			t.maxK = k
		}
	}
	return t
}

// Params returns the target's parameter set.
func (t LUTTarget) Params() Params { return t.p }

// MaxLUTInputs is the largest k for which some function depending on all k
// inputs passes the failure bound (0 if none does).
func (t LUTTarget) MaxLUTInputs() int { return t.maxK }

// WithParityFailure returns t with the PARITY width chosen for a failure
// bound of its own, which may be looser or tighter than t's LUT bound (LUTs
// keep t's): wide parities dominate a mapped AES's failure, so a caller
// trades bootstraps for reliability here. On STD128_LOWFAIL_T, -40 gives
// K = 64 (aes_128: 14649 bootstraps, 2^-41 per block) and the default -80
// (DefaultParityFailureLog2) K = 36 (15750, 2^-72).
func (t LUTTarget) WithParityFailure(maxFailureLog2 float64) LUTTarget {
	t.maxPar = t.p.MaxParityInputs(maxFailureLog2)
	t.parFail = maxFailureLog2
	return t
}

// ParityFailureLog2 is the bound MaxParityInputs was chosen for.
func (t LUTTarget) ParityFailureLog2() float64 { return t.parFail }

// MaxParityInputs is the widest ir.OpParity node the Backend evaluates in
// one bootstrap within the bound (Params.MaxParityInputs); the optimizer
// maps XOR cones of up to this many leaves to one PARITY node.
func (t LUTTarget) MaxParityInputs() int { return t.maxPar }

// CanEvalLUT reports whether one bootstrap evaluates the k-input table
// (bit i = f(i), input 0 least significant, as ir.LUT) within the bound.
func (t LUTTarget) CanEvalLUT(table uint64, k int) bool {
	_, ok := t.plan(table, k)
	return ok
}

// plan is CanEvalLUT with the evaluation plan, without allocating.
func (t LUTTarget) plan(table uint64, k int) (lutPlan, bool) {
	if k < 1 || k > t.maxK {
		return lutPlan{}, false
	}
	pl := findPlan(t.p.slots, table, k)
	return pl, pl.ok && t.p.SumFailureLog2(pl.spec.Weights) <= t.maxFail
}

// GateBootstraps returns how many bootstraps one node of op costs on this set:
// 0 for NOT (free), constants and inputs; 1 for the two-input gates and for
// a LUT that CanEvalLUT accepts; for MUX 1 if one weighted sum of s, a, b
// decides it, else 2 (t = s AND a, then one bootstrap on 2t - s + b). No
// current set has a one-bootstrap MUX, not even at P = 8. SEL costs
// SelectBootstraps (0 on sets without the CMux gadget, which cannot
// evaluate it) and CMUX nothing (an external product). The optimizer
// uses this to cost native ops (optimize.GateCoster), except that its
// objective prices a SEL at the unrounded SelectCost.
func (t LUTTarget) GateBootstraps(op ir.Op) int {
	switch op {
	case ir.OpMux:
		if findPlan(t.p.slots, muxTable, 3).ok {
			return 1
		}
		return 2
	case ir.OpSel:
		return t.SelectBootstraps()
	case ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNand, ir.OpNor, ir.OpXnor, ir.OpAndNY, ir.OpLUT, ir.OpParity, ir.OpMLUT:
		return 1
	}
	return 0 // NOT, MOUT (an extraction from its MLUT's blind rotation) and CMUX
}

// Cost is GateBootstraps as the IR's cost model, named "bootstraps": every
// report of a circuit's bootstraps on this set (hcc compile, the pass lines,
// the run's statistics) counts with it, through ir.Circuit.StatsFor.
func (t LUTTarget) Cost() ir.Cost { return ir.Cost{Name: "bootstraps", Of: t.GateBootstraps} }

// CircuitBootstraps sums GateBootstraps over the nodes of c: the number of
// bootstraps an encrypted run of c performs (StatsFor(t.Cost()).Costly,
// without the depth).
func (t LUTTarget) CircuitBootstraps(c *ir.Circuit) int {
	var cost [32]int
	for op := range cost {
		cost[op] = t.GateBootstraps(ir.Op(op))
	}
	total := 0
	for i := range c.Nodes {
		if op := c.Nodes[i].Op; int(op) < len(cost) {
			total += cost[op]
		}
	}
	return total
}

// muxTable is s ? a : b on the index s + 2a + 4b (see Evaluator.MUX).
const muxTable = 0b11011000

// Backend is an Evaluator seen by the runtime (backend.Evaluator): it
// evaluates NOT for free, the two-input gates, MUX, and the LUT and PARITY
// nodes that its LUTTarget accepts. Immutable and shared by all workers.
type Backend struct {
	ev  *Evaluator
	lut LUTTarget
}

// NewBackend wraps ev with the LUT capability NewLUTTarget(ev.Params(),
// DefaultLUTFailureLog2).
func NewBackend(ev *Evaluator) *Backend {
	return NewBackendWithTarget(ev, NewLUTTarget(ev.Params(), DefaultLUTFailureLog2))
}

// NewBackendWithTarget wraps ev with a given LUT capability (it must be for
// ev's parameter set).
func NewBackendWithTarget(ev *Evaluator, t LUTTarget) *Backend {
	return &Backend{ev: ev, lut: t}
}

// Evaluator returns the wrapped gate evaluator.
func (b *Backend) Evaluator() *Evaluator { return b.ev }

// LUTTarget returns the capability the backend reports (and the optimizer
// should map to).
func (b *Backend) LUTTarget() LUTTarget { return b.lut }

// nativeOps are the ir ops Worker.Eval accepts.
var nativeOps = []ir.Op{ir.OpNot, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNand, ir.OpNor, ir.OpXnor, ir.OpAndNY, ir.OpMux, ir.OpLUT, ir.OpParity, ir.OpMLUT, ir.OpMOut}

// Capabilities implements backend.Evaluator: every gate op, LUTs within the
// target's bound, SEL and CMUX on sets with the CMux gadget, one circuit
// instance per ciphertext.
func (b *Backend) Capabilities() backend.Capabilities {
	ops := append([]ir.Op(nil), nativeOps...)
	if b.ev.params.HasCMux() {
		ops = append(ops, ir.OpSel, ir.OpCMux)
	}
	return backend.Capabilities{Ops: ops, LUT: b.lut, Slots: 1, Cost: b.lut.GateBootstraps, CostName: "bootstraps"}
}

// NewWorker implements backend.Evaluator: a worker owns one Scratch and one
// temporary ciphertext (MUX at P = 4).
func (b *Backend) NewWorker() backend.Worker {
	p := b.ev.params
	return &worker{ev: b.ev, lut: b.lut, sc: NewScratch(p), tmp: NewCiphertext(p)}
}

type worker struct {
	ev  *Evaluator
	lut LUTTarget
	sc  *Scratch
	tmp *Ciphertext
	in  [ir.MaxParityInputs]*Ciphertext
}

// NewCiphertext allocates a gate-level ciphertext (*Ciphertext).
func (w *worker) NewCiphertext() backend.Ciphertext { return NewCiphertext(w.ev.params) }

// Constant writes the trivial encryption (β = v·Q_ks/P, α = 0): public and
// noiseless, which is what a circuit constant is.
func (w *worker) Constant(v bool, out backend.Ciphertext) {
	o := out.(*Ciphertext)
	TrivialCiphertext(w.ev.params, v, o)
}

// TrivialCiphertext sets out to the noiseless encryption of v with α = 0.
// It decrypts under every key: use it for public constants only.
func TrivialCiphertext(p Params, v bool, out *Ciphertext) {
	clear(out.A)
	out.B = 0
	if v {
		out.B = uint16(p.qks / p.slots)
	}
}

// Eval dispatches n to the gate evaluator. in and out hold *Ciphertext.
func (w *worker) Eval(n *ir.Node, in []backend.Ciphertext, out backend.Ciphertext) error {
	o, ok := out.(*Ciphertext)
	if !ok {
		return fmt.Errorf("fhew: output is a %T, not an FHEW ciphertext", out)
	}
	if len(in) != len(n.In) || len(in) > len(w.in) {
		return fmt.Errorf("fhew: %v node with %d fanins got %d ciphertexts", n.Op, len(n.In), len(in))
	}
	x := w.in[:len(in)]
	for j, c := range in {
		ct, ok := c.(*Ciphertext)
		if !ok {
			return fmt.Errorf("fhew: input %d is a %T, not an FHEW ciphertext", j, c)
		}
		x[j] = ct
	}
	ev, sc := w.ev, w.sc
	o.selOK = false // only an OpSel output carries a current select form
	// Gates and LUTs go through the Evaluator's plans (findPlan): XOR and
	// XNOR (and LUTs with even weights) get the wide margin.
	switch n.Op {
	case ir.OpNot:
		ev.Not(x[0], o)
	case ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNand, ir.OpNor, ir.OpXnor, ir.OpAndNY:
		ev.evalPlan(&ev.gates[opGate[n.Op]], x, o, sc)
	case ir.OpMux:
		ev.MUX(x[0], x[1], x[2], o, sc, w.tmp)
	case ir.OpLUT:
		pl, ok := w.lut.plan(n.Table, len(x))
		if !ok {
			return fmt.Errorf("fhew: LUT%d %#x is not evaluable in one bootstrap within 2^%.0f failure on %s",
				len(x), n.Table, w.lut.maxFail, ev.params.Name())
		}
		ev.evalPlan(&pl, x, o, sc)
	case ir.OpParity:
		if len(x) > w.lut.maxPar {
			return fmt.Errorf("fhew: PARITY of %d inputs exceeds %d, the widest within 2^%.0f failure on %s",
				len(x), w.lut.maxPar, w.lut.parFail, ev.params.Name())
		}
		if err := ev.EvalParity(x, o, sc); err != nil {
			return err
		}
	case ir.OpMLUT, ir.OpMOut:
		if err := w.evalMulti(n, x, o); err != nil {
			return err
		}
	case ir.OpSel, ir.OpCMux:
		if err := w.evalSel(n, x, o); err != nil {
			return err
		}
	default:
		return fmt.Errorf("fhew: cannot evaluate a %v node", n.Op)
	}
	clear(x) // drop references so the runtime's free list owns them
	return nil
}

// EncryptBits encrypts one bit per element of bits (the layout of
// ir.Circuit.PackInputs) as fresh ciphertexts ready for runtime.Run.
func (enc *Encryptor) EncryptBits(bits []bool) []backend.Ciphertext {
	out := make([]backend.Ciphertext, len(bits))
	for i, b := range bits {
		v := 0
		if b {
			v = 1
		}
		out[i] = enc.EncryptNew(v)
	}
	return out
}

// DecryptBits decrypts ciphertexts returned by runtime.Run (each a
// *Ciphertext) into one bool per bit (the layout of ir.Circuit.UnpackOutputs).
// A ciphertext whose phase is no bit encoding (noise overflow, or another
// key) is an error naming its index.
func (sk *SecretKey) DecryptBits(cts []backend.Ciphertext) ([]bool, error) {
	out := make([]bool, len(cts))
	for i, c := range cts {
		ct, ok := c.(*Ciphertext)
		if !ok {
			return nil, fmt.Errorf("fhew: ciphertext %d is a %T, not an FHEW ciphertext", i, c)
		}
		if len(ct.A) != sk.params.N {
			return nil, fmt.Errorf("fhew: ciphertext %d has dimension %d, the key %d", i, len(ct.A), sk.params.N)
		}
		v, err := sk.Decrypt(ct)
		if err != nil {
			return nil, fmt.Errorf("bit %d: %w", i, err)
		}
		out[i] = v == 1
	}
	return out, nil
}

// CiphertextSize is the encoded size in bytes of one ciphertext of p
// (AppendCiphertext): β and α as little-endian uint16.
func CiphertextSize(p Params) int { return 2 * (p.N + 1) }

// AppendCiphertext appends the encoding of c (β then α_0..α_{N-1}, uint16
// little endian) to buf.
func AppendCiphertext(buf []byte, c *Ciphertext) []byte {
	buf = append(buf, byte(c.B), byte(c.B>>8))
	for _, a := range c.A {
		buf = append(buf, byte(a), byte(a>>8))
	}
	return buf
}

// DecodeCiphertext decodes one ciphertext of p from data, which must be
// exactly CiphertextSize(p) bytes; entries must be reduced mod Q_ks.
func DecodeCiphertext(p Params, data []byte) (*Ciphertext, error) {
	if len(data) != CiphertextSize(p) {
		return nil, fmt.Errorf("fhew: ciphertext is %d bytes, want %d", len(data), CiphertextSize(p))
	}
	c := NewCiphertext(p)
	mask := uint32(p.qks - 1)
	get := func(i int) (uint16, error) {
		v := uint32(data[2*i]) | uint32(data[2*i+1])<<8
		if v&^mask != 0 {
			return 0, fmt.Errorf("fhew: ciphertext entry %d = %d is not reduced mod Q_ks = %d", i, v, p.qks)
		}
		return uint16(v), nil
	}
	var err error
	if c.B, err = get(0); err != nil {
		return nil, err
	}
	for i := range c.A {
		if c.A[i], err = get(i + 1); err != nil {
			return nil, err
		}
	}
	return c, nil
}
