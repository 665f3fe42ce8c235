package optimize

import "github.com/hcc-fhe/hcc/ir"

// AbsorbNot folds NOT gates into the gates that read them: ¬a ∧ b becomes
// ANDNY(b, a), ¬a ⊕ b becomes XNOR(a, b), MUX(¬s, t, f) becomes MUX(s, f, t),
// a LUT reading ¬a gets its table permuted, and a PARITY reading NOTs reads
// their inputs and gets one NOT on its output if their number is odd. NOT costs nothing in FHEW but
// it is still a node to schedule, and leaving it in the way hides patterns
// from later passes. NOTs that drive outputs stay.
var AbsorbNot = Pass{
	Name: "absorb-not",
	Doc:  "requires a verified circuit; ensures no gate reads a NOT (only outputs may)",
	Run: func(c *ir.Circuit) (*ir.Circuit, error) {
		return rebuild(c, func(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID {
			// Folding rules may introduce NOTs (MUX(s, t, 1) = ¬s ∨ t), so
			// they stay off: this pass only moves negations.
			b.SetFolding(false)
			return absorbNotInto(b, n, in)
		})
	},
}

// absorbNotInto emits n with its negated fanins folded in.
func absorbNotInto(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID {
	neg := make([]bool, len(in))
	base := make([]ir.NodeID, len(in))
	any := false
	for j, x := range in {
		base[j] = x
		if nd := b.Node(x); nd.Op == ir.OpNot {
			neg[j], base[j], any = true, nd.In[0], true
		}
	}
	if n.Op == ir.OpNot && neg[0] {
		return base[0] // ¬¬a = a
	}
	if !any || n.Op == ir.OpNot {
		return emitSame(b, n, in)
	}
	switch n.Op {
	case ir.OpMLUT, ir.OpMOut, ir.OpSel, ir.OpCMux:
		// Mapped groups (ir/mlut.go, ir/sel.go) keep their fanins: a
		// CMux must read its OpSel, and a group's members the same inputs.
		return emitSame(b, n, in)
	}
	switch n.Op {
	case ir.OpParity: // ¬a ⊕ b ⊕ ... = ¬(a ⊕ b ⊕ ...): the NOT moves to the output
		odd := false
		for _, v := range neg {
			odd = odd != v
		}
		r := b.Parity(base...)
		if odd {
			r = b.Not(r)
		}
		return r
	case ir.OpMux:
		if !neg[1] && !neg[2] { // MUX(¬s, t, f) = MUX(s, f, t)
			return b.Mux(base[0], in[2], in[1])
		}
		return foldLUT(b, negateInputs(muxTable, 3, neg), base)
	case ir.OpLUT:
		return foldLUT(b, negateInputs(n.Table, len(in), neg), base)
	}
	// Two-input gates: compute the table over (base0, base1) and pick the op.
	var t uint64
	for idx := 0; idx < 4; idx++ {
		a, c := uint64(idx&1), uint64(idx>>1&1)
		if neg[0] {
			a ^= 1
		}
		if neg[1] {
			c ^= 1
		}
		var va, vc uint64
		if a == 1 {
			va = ^uint64(0)
		}
		if c == 1 {
			vc = ^uint64(0)
		}
		t |= (ir.EvalGate(n.Op, 0, []uint64{va, vc}) & 1) << idx
	}
	return emitTable2(b, t, base[0], base[1])
}

// muxTable is MUX(s, t, f) as a LUT over (s, t, f), s least significant.
const muxTable = 0b11011000

// negateInputs returns the table of f(x with inputs marked neg inverted).
func negateInputs(table uint64, k int, neg []bool) uint64 {
	flip := 0
	for j, n := range neg {
		if n {
			flip |= 1 << j
		}
	}
	var out uint64
	for idx := 0; idx < 1<<k; idx++ {
		out |= (table >> uint(idx^flip) & 1) << uint(idx)
	}
	return out
}

// emitTable2 emits the 2-input function with table t (bit idx = f(a=idx&1,
// b=idx>>1)) as a native gate, a NOT, a wire or a constant.
func emitTable2(b *ir.Builder, t uint64, a, c ir.NodeID) ir.NodeID {
	switch t & 0xf {
	case 0x0:
		return b.Const(false)
	case 0xf:
		return b.Const(true)
	case 0xa:
		return a
	case 0x5:
		return b.Not(a)
	case 0xc:
		return c
	case 0x3:
		return b.Not(c)
	case 0x8:
		return b.And(a, c)
	case 0xe:
		return b.Or(a, c)
	case 0x6:
		return b.Xor(a, c)
	case 0x7:
		return b.Nand(a, c)
	case 0x1:
		return b.Nor(a, c)
	case 0x9:
		return b.Xnor(a, c)
	case 0x2: // a ∧ ¬c
		return b.AndNY(a, c)
	case 0x4: // c ∧ ¬a
		return b.AndNY(c, a)
	case 0xb: // a ∨ ¬c = ¬(c ∧ ¬a)
		return b.Not(b.AndNY(c, a))
	case 0xd: // ¬a ∨ c = ¬(a ∧ ¬c)
		return b.Not(b.AndNY(a, c))
	}
	panic("unreachable")
}
