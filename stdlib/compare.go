package stdlib

import "github.com/hcc-fhe/hcc/ir"

// Equal returns x == y: XNOR per bit and a balanced AND tree (AND-depth
// ⌈log2 n⌉ in either style, so it takes no Style).
func Equal(b *ir.Builder, x, y []ir.NodeID) ir.NodeID {
	mustSameLen("Equal", x, y)
	eq := make([]ir.NodeID, len(x))
	for i := range x {
		eq[i] = b.Xnor(x[i], y[i])
	}
	return andTree(b, eq)
}

// andTree returns the AND of bits as a balanced tree (true for no bits).
func andTree(b *ir.Builder, bits []ir.NodeID) ir.NodeID {
	if len(bits) == 0 {
		return b.Const(true)
	}
	level := append([]ir.NodeID(nil), bits...)
	for len(level) > 1 {
		next := level[:0:0]
		for i := 0; i+1 < len(level); i += 2 {
			next = append(next, b.And(level[i], level[i+1]))
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return level[0]
}

// orTree returns the OR of bits as a balanced tree (false for no bits).
func orTree(b *ir.Builder, bits []ir.NodeID) ir.NodeID {
	return b.Not(andTree(b, notVec(b, bits)))
}

// Less returns x < y. Unsigned, x < y exactly when x + ¬y + 1 has no carry
// out; signed operands are compared as unsigned after flipping both sign
// bits, which maps [MIN, MAX] monotonically onto [0, 2^n-1].
func Less(b *ir.Builder, x, y []ir.NodeID, signed bool, s Style) ir.NodeID {
	mustSameLen("Less", x, y)
	if len(x) == 0 {
		return b.Const(false)
	}
	ny := notVec(b, y)
	if signed {
		n := len(x)
		x = append(append([]ir.NodeID(nil), x[:n-1]...), b.Not(x[n-1]))
		ny[n-1] = b.Not(ny[n-1])
	}
	return b.Not(carryOut(b, x, ny, b.Const(true), s))
}

// LessEqual returns x <= y, i.e. ¬(y < x).
func LessEqual(b *ir.Builder, x, y []ir.NodeID, signed bool, s Style) ir.NodeID {
	return b.Not(Less(b, y, x, signed, s))
}
