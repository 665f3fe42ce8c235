package optimize

import (
	"math/bits"

	"github.com/hcc-fhe/hcc/ir"
)

// lowerXAG rewrites c over AND, XOR and NOT (stage 1 of AndDepth). Every
// rewrite keeps the gate's AND-level: a two-input gate of degree two is one
// AND with negations, MUX(s, t, f) = f ⊕ s∧(t ⊕ f) is one AND above
// max(s, t, f), and a LUT is expanded to its algebraic normal form only if no
// monomial has degree above two (otherwise the ANF would be deeper than the
// one level the LUT counts for, and the LUT stays).
func lowerXAG(c *ir.Circuit) (*ir.Circuit, error) {
	return rebuild(c, func(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID {
		if n.Op == ir.OpLUT {
			return lowerLUT(b, n.Table, in)
		}
		return lowerGate(b, n.Op, in)
	})
}

// lowerGate emits one native gate over AND/XOR/NOT.
func lowerGate(b *ir.Builder, op ir.Op, in []ir.NodeID) ir.NodeID {
	switch op {
	case ir.OpConst0, ir.OpConst1, ir.OpNot, ir.OpAnd, ir.OpXor: // already AND/XOR/NOT
		return emitSame(b, &ir.Node{Op: op}, in)
	case ir.OpOr: // a ∨ b = ¬(¬a ∧ ¬b): an OR chain becomes an AND chain
		return b.Not(b.And(b.Not(in[0]), b.Not(in[1])))
	case ir.OpNand:
		return b.Not(b.And(in[0], in[1]))
	case ir.OpNor:
		return b.And(b.Not(in[0]), b.Not(in[1]))
	case ir.OpXnor:
		return b.Not(b.Xor(in[0], in[1]))
	case ir.OpAndNY:
		return b.And(in[0], b.Not(in[1]))
	case ir.OpMux:
		return b.Xor(in[2], b.And(in[0], b.Xor(in[1], in[2])))
	case ir.OpSel: // the identity (ir/sel.go)
		return in[0]
	case ir.OpCMux: // MUX on the OpSel's input: in[0] is the lowered OpSel, i.e. that input
		return b.Xor(in[2], b.And(in[0], b.Xor(in[1], in[2])))
	case ir.OpParity: // XOR is free in AND-depth: any tree will do
		r := in[0]
		for _, x := range in[1:] {
			r = b.Xor(r, x)
		}
		return r
	}
	panic("optimize: internal error in pass \"and-depth\": unexpected op " + op.String())
}

// lowerLUT emits a LUT as the XOR of its ANF monomials when its degree is at
// most two, and as a (simplified) LUT otherwise.
func lowerLUT(b *ir.Builder, table uint64, in []ir.NodeID) ir.NodeID {
	r := relower(b, foldLUT(b, table, in)) // drops constant, repeated and unused inputs
	n := b.Node(r)
	if n.Op != ir.OpLUT {
		return r
	}
	k := len(n.In)
	anf := ir.ANF(n.Table, k)
	for mono := uint(0); mono < 1<<uint(k); mono++ {
		if anf>>mono&1 == 1 && bits.OnesCount(mono) > 2 {
			return r
		}
	}
	ins := append([]ir.NodeID(nil), n.In...)
	acc := b.Const(false)
	for mono := uint(0); mono < 1<<uint(k); mono++ {
		if anf>>mono&1 == 0 {
			continue
		}
		term := b.Const(true)
		for j := 0; j < k; j++ {
			if mono>>uint(j)&1 == 1 {
				term = b.And(term, ins[j])
			}
		}
		acc = b.Xor(acc, term)
	}
	return acc
}

// relower re-expresses node r over AND/XOR/NOT if it is another native gate
// (foldLUT picks native gates for two-input functions), looking through NOTs.
func relower(b *ir.Builder, r ir.NodeID) ir.NodeID {
	n := b.Node(r)
	switch n.Op {
	case ir.OpNot:
		if x := relower(b, n.In[0]); x != n.In[0] {
			return b.Not(x)
		}
		return r
	case ir.OpOr, ir.OpNand, ir.OpNor, ir.OpXnor, ir.OpAndNY, ir.OpMux:
		return lowerGate(b, n.Op, append([]ir.NodeID(nil), n.In...))
	}
	return r
}
