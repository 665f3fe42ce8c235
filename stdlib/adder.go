package stdlib

import "github.com/hcc-fhe/hcc/ir"

// fullAdder returns x+y+c as (sum, carry) with one AND gate: the carry is the
// majority c ⊕ ((x⊕c) ∧ (y⊕c)), which costs a single multiplicative level
// in BGV and five bootstrapped gates in FHEW.
func fullAdder(b *ir.Builder, x, y, c ir.NodeID) (sum, carry ir.NodeID) {
	t1 := b.Xor(x, c)
	t2 := b.Xor(y, c)
	return b.Xor(x, t2), b.Xor(c, b.And(t1, t2))
}

// Add returns x + y + cin (len(x) bits, wrapping) and the carry out.
// x and y must have equal lengths.
func Add(b *ir.Builder, x, y []ir.NodeID, cin ir.NodeID, s Style) (sum []ir.NodeID, cout ir.NodeID) {
	mustSameLen("Add", x, y)
	if s == DepthOptimized {
		return addSklansky(b, x, y, cin)
	}
	return addRipple(b, x, y, cin)
}

func addRipple(b *ir.Builder, x, y []ir.NodeID, cin ir.NodeID) ([]ir.NodeID, ir.NodeID) {
	sum := make([]ir.NodeID, len(x))
	c := cin
	for i := range x {
		sum[i], c = fullAdder(b, x[i], y[i], c)
	}
	return sum, c
}

// prefixCarries returns the carries c[0..n] of x+y+cin (c[0] = cin, c[n] =
// carry out) with a Sklansky parallel-prefix network: AND-depth 1+⌈log2(n+1)⌉.
// Position 0 of the prefix holds cin as a generate with no propagate. The
// "or" of the (G, P) operator is an XOR because G_hi and P_hi are never both
// true, which keeps BGV's OR-free form (XOR costs no level).
func prefixCarries(b *ir.Builder, x, y []ir.NodeID, cin ir.NodeID) []ir.NodeID {
	m := len(x) + 1
	g := make([]ir.NodeID, m)
	p := make([]ir.NodeID, m)
	g[0], p[0] = cin, b.Const(false)
	for i := range x {
		g[i+1] = b.And(x[i], y[i])
		p[i+1] = b.Xor(x[i], y[i])
	}
	for l := 0; 1<<l < m; l++ {
		for i := 0; i < m; i++ {
			if i>>l&1 == 0 {
				continue
			}
			j := (i>>l)<<l - 1 // last position of the block to the right
			g[i] = b.Xor(g[i], b.And(p[i], g[j]))
			p[i] = b.And(p[i], p[j])
		}
	}
	return g
}

func addSklansky(b *ir.Builder, x, y []ir.NodeID, cin ir.NodeID) ([]ir.NodeID, ir.NodeID) {
	c := prefixCarries(b, x, y, cin)
	sum := make([]ir.NodeID, len(x))
	for i := range x {
		sum[i] = b.Xor(b.Xor(x[i], y[i]), c[i])
	}
	return sum, c[len(x)]
}

// carryOut returns only the carry out of x+y+cin, which is what comparators
// need: a ripple chain (size) or a balanced (G, P) reduction tree (depth).
func carryOut(b *ir.Builder, x, y []ir.NodeID, cin ir.NodeID, s Style) ir.NodeID {
	if s != DepthOptimized {
		c := cin
		for i := range x {
			c = b.Xor(c, b.And(b.Xor(x[i], c), b.Xor(y[i], c)))
		}
		return c
	}
	type gp struct{ g, p ir.NodeID }
	level := make([]gp, 0, len(x)+1)
	level = append(level, gp{cin, b.Const(false)})
	for i := range x {
		level = append(level, gp{b.And(x[i], y[i]), b.Xor(x[i], y[i])})
	}
	for len(level) > 1 {
		next := level[:0:0]
		for i := 0; i+1 < len(level); i += 2 {
			lo, hi := level[i], level[i+1]
			next = append(next, gp{b.Xor(hi.g, b.And(hi.p, lo.g)), b.And(hi.p, lo.p)})
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return level[0].g
}

// Sub returns x - y modulo 2^len(x), computed as x + ¬y + 1.
func Sub(b *ir.Builder, x, y []ir.NodeID, s Style) []ir.NodeID {
	mustSameLen("Sub", x, y)
	d, _ := Add(b, x, notVec(b, y), b.Const(true), s)
	return d
}

// Neg returns -x modulo 2^len(x), computed as ¬x + 1.
func Neg(b *ir.Builder, x []ir.NodeID, s Style) []ir.NodeID {
	d, _ := Add(b, notVec(b, x), zeros(b, len(x)), b.Const(true), s)
	return d
}

// condNeg returns neg ? -x : x as (x ⊕ neg) + neg, cheaper than a mux of both.
func condNeg(b *ir.Builder, x []ir.NodeID, neg ir.NodeID, s Style) []ir.NodeID {
	t := make([]ir.NodeID, len(x))
	for i := range x {
		t[i] = b.Xor(x[i], neg)
	}
	d, _ := Add(b, t, zeros(b, len(x)), neg, s)
	return d
}
