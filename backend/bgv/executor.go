package bgv

import (
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// Backend is the bit-sliced circuit executor: a backend.Evaluator whose
// ciphertexts (*Ciphertext) each hold one bit per slot, so that one run
// evaluates ℓ independent instances of the circuit. Gates are their GF(2)
// polynomials: XOR a+b, NOT a+1, AND a·b, OR a+b+ab, NAND 1+ab,
// NOR 1+a+b+ab, XNOR 1+a+b, ANDNY a+ab, MUX b+s(a+b), and a LUT its
// algebraic normal form (ir.ANF), with each monomial built by a balanced
// product tree. Immutable and safe for concurrent use; each Worker has its
// own scratch.
type Backend struct {
	ev *Evaluator
}

// NewBackend wraps an evaluator (with its relinearization key) as a circuit
// executor.
func NewBackend(ev *Evaluator) *Backend { return &Backend{ev: ev} }

// lutAll evaluates every LUT of up to 6 inputs (by its ANF).
type lutAll struct{}

func (lutAll) MaxLUTInputs() int                   { return 6 }
func (lutAll) CanEvalLUT(table uint64, k int) bool { return k >= 1 && k <= 6 }

// Capabilities lists every gate op and LUTs of up to 6 inputs; Slots is ℓ.
// Cost counts multiplications (with relinearization), the operations that
// dominate the run time: one per AND-like gate and per LUT (a LUT's real
// count depends on its table, which Cost does not see), none for XOR, XNOR
// and NOT.
func (b *Backend) Capabilities() backend.Capabilities {
	return backend.Capabilities{
		Ops: []ir.Op{ir.OpNot, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNand, ir.OpNor, ir.OpXnor,
			ir.OpAndNY, ir.OpMux, ir.OpLUT, ir.OpParity},
		LUT:   lutAll{},
		Slots: b.ev.params.slots,
		Cost:  MulCost,
	}
}

// MulCost is the number of ciphertext multiplications the executor spends
// on a node of op (1 for LUTs, whose true count depends on the table).
func MulCost(op ir.Op) int {
	switch op {
	case ir.OpAnd, ir.OpOr, ir.OpNand, ir.OpNor, ir.OpAndNY, ir.OpMux, ir.OpLUT:
		return 1
	}
	return 0
}

// NewWorker returns a worker with its own scratch.
func (b *Backend) NewWorker() backend.Worker {
	pr := b.ev.params
	return &worker{ev: b.ev, sc: pr.NewScratch(), t0: pr.NewCiphertext()}
}

// worker evaluates nodes; not safe for concurrent use.
type worker struct {
	ev   *Evaluator
	sc   *Scratch
	t0   *Ciphertext
	mono [64]*Ciphertext // LUT monomials, allocated on first use
}

func (w *worker) NewCiphertext() backend.Ciphertext { return w.ev.params.NewCiphertext() }

func (w *worker) Constant(v bool, out backend.Ciphertext) {
	w.ev.SetConstant(v, out.(*Ciphertext))
}

// Eval computes node n. out never aliases an element of in.
func (w *worker) Eval(n *ir.Node, in []backend.Ciphertext, out backend.Ciphertext) error {
	o := out.(*Ciphertext)
	arg := func(i int) *Ciphertext { return in[i].(*Ciphertext) }
	ev, sc := w.ev, w.sc
	var err error
	switch n.Op {
	case ir.OpNot:
		ev.AddOne(arg(0), o)
	case ir.OpXor:
		err = ev.Add(arg(0), arg(1), o, sc)
	case ir.OpXnor:
		err = ev.Add(arg(0), arg(1), o, sc)
		ev.AddOne(o, o)
	case ir.OpAnd:
		err = ev.Mul(arg(0), arg(1), o, sc)
	case ir.OpNand:
		err = ev.Mul(arg(0), arg(1), o, sc)
		ev.AddOne(o, o)
	case ir.OpOr, ir.OpNor: // a + b + ab
		if err = ev.Mul(arg(0), arg(1), o, sc); err == nil {
			if err = ev.Add(o, arg(0), o, sc); err == nil {
				err = ev.Add(o, arg(1), o, sc)
			}
		}
		if n.Op == ir.OpNor {
			ev.AddOne(o, o)
		}
	case ir.OpAndNY: // a·(1+b) = a + ab
		if err = ev.Mul(arg(0), arg(1), o, sc); err == nil {
			err = ev.Add(o, arg(0), o, sc)
		}
	case ir.OpMux: // s ? a : b = b + s·(a+b)
		if err = ev.Add(arg(1), arg(2), w.t0, sc); err == nil {
			if err = ev.Mul(arg(0), w.t0, o, sc); err == nil {
				err = ev.Add(o, arg(2), o, sc)
			}
		}
	case ir.OpParity: // a sum: free of multiplications
		err = ev.Add(arg(0), arg(1), o, sc)
		for j := 2; j < len(in) && err == nil; j++ {
			err = ev.Add(o, arg(j), o, sc)
		}
	case ir.OpLUT:
		err = w.lut(n, in, o)
	default:
		err = fmt.Errorf("bgv executor: op %v is not a gate", n.Op)
	}
	if err != nil {
		return fmt.Errorf("bgv executor: %v: %w", n.Op, err)
	}
	return nil
}

// lut evaluates a LUT node as Σ_m c_m·Π_(j∈m) x_j over its ANF.
func (w *worker) lut(n *ir.Node, in []backend.Ciphertext, out *Ciphertext) error {
	k := len(n.In)
	anf := ir.ANF(n.Table, k)
	ev, sc := w.ev, w.sc
	have := uint64(0) // masks whose monomial is in w.mono
	var mono func(m uint64) (*Ciphertext, error)
	mono = func(m uint64) (*Ciphertext, error) {
		if bits.OnesCount64(m) == 1 {
			return in[bits.TrailingZeros64(m)].(*Ciphertext), nil
		}
		if have>>m&1 == 1 {
			return w.mono[m], nil
		}
		// Balanced split: the lower half of the set bits times the rest.
		lo, c := uint64(0), bits.OnesCount64(m)/2
		for r := m; c > 0; r &= r - 1 {
			lo |= r & -r
			c--
		}
		a, err := mono(lo)
		if err != nil {
			return nil, err
		}
		b, err := mono(m &^ lo)
		if err != nil {
			return nil, err
		}
		if w.mono[m] == nil {
			w.mono[m] = ev.params.NewCiphertext()
		}
		if err := ev.Mul(a, b, w.mono[m], sc); err != nil {
			return nil, err
		}
		have |= 1 << m
		return w.mono[m], nil
	}
	ev.SetConstant(anf&1 == 1, out)
	first := anf&1 == 0
	for m := uint64(1); m < 1<<uint(k); m++ {
		if anf>>m&1 == 0 {
			continue
		}
		x, err := mono(m)
		if err != nil {
			return err
		}
		if first {
			copyTo(x, out)
			first = false
			continue
		}
		if err := ev.Add(out, x, out, sc); err != nil {
			return err
		}
	}
	return nil
}

// CircuitDepth returns the multiplicative depth of c for this executor:
// AND, OR, NAND, NOR, ANDNY and MUX cost one level, XOR, XNOR and NOT none,
// and a LUT ceil(log2(deg)) for the degree deg of its ANF (its monomials are
// balanced product trees). ir's Stats().AndDepth counts every non-affine LUT
// as one level, which is right for FHEW's bootstrapped LUTs but not here.
func CircuitDepth(c *ir.Circuit) int {
	depth := make([]int, len(c.Nodes))
	best := 0
	for i := range c.Nodes {
		n := &c.Nodes[i]
		d := 0
		for _, f := range n.In {
			d = max(d, depth[f])
		}
		switch n.Op {
		case ir.OpAnd, ir.OpOr, ir.OpNand, ir.OpNor, ir.OpAndNY, ir.OpMux:
			d++
		case ir.OpLUT:
			deg := 0
			anf := ir.ANF(n.Table, len(n.In))
			for m := uint64(0); m < 1<<uint(len(n.In)); m++ {
				if anf>>m&1 == 1 {
					deg = max(deg, bits.OnesCount64(m))
				}
			}
			if deg > 1 {
				d += bits.Len(uint(deg - 1))
			}
		}
		depth[i] = d
		best = max(best, d)
	}
	return best
}

// CheckCircuit returns nil if c fits the chain (CheckDepth of CircuitDepth).
func (pr *Params) CheckCircuit(c *ir.Circuit) error { return pr.CheckCircuitAt(c, pr.MaxLevel()) }

// CheckCircuitAt is CheckCircuit for inputs at level t.
func (pr *Params) CheckCircuitAt(c *ir.Circuit, t int) error {
	if err := pr.CheckDepthAt(CircuitDepth(c), t); err != nil {
		return fmt.Errorf("circuit %q: %w", c.Name, err)
	}
	return nil
}
