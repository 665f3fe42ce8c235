package bgv

import (
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
			ir.OpAndNY, ir.OpMux, ir.OpLUT, ir.OpParity, ir.OpMLUT, ir.OpMOut, ir.OpSel, ir.OpCMux},
		LUT:      lutAll{},
		Slots:    b.ev.params.slots,
		Cost:     MulCost,
		CostName: "multiplications",
	}
}

// MulCost is the number of ciphertext multiplications the executor spends
// on a node of op (1 for LUTs, whose true count depends on the table).
func MulCost(op ir.Op) int {
	switch op {
	case ir.OpAnd, ir.OpOr, ir.OpNand, ir.OpNor, ir.OpAndNY, ir.OpMux, ir.OpCMux, ir.OpLUT, ir.OpMLUT, ir.OpMOut:
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

// Eval computes node n (evalGate on ciphertexts). out never aliases an
// element of in.
func (w *worker) Eval(n *ir.Node, in []backend.Ciphertext, out backend.Ciphertext) error {
	var buf [max(ir.MaxLUTInputs, ir.MaxParityInputs)]*Ciphertext
	args := buf[:len(in)]
	for i, x := range in {
		args[i] = x.(*Ciphertext)
	}
	return evalGate[*Ciphertext](ctArith{w}, n, args, out.(*Ciphertext))
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
		case ir.OpAnd, ir.OpOr, ir.OpNand, ir.OpNor, ir.OpAndNY, ir.OpMux, ir.OpCMux:
			d++
		case ir.OpLUT, ir.OpMLUT, ir.OpMOut:
			deg := 0
			t, lin, _ := n.TableView()
			anf := ir.ANF(t, len(lin))
			for m := uint64(0); m < 1<<uint(len(lin)); m++ {
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
