package optimize

import "github.com/hcc-fhe/hcc/ir"

// Compare-and-swap pairs. A MUX costs two FHEW bootstraps (t = s AND a,
// then one on 2t - s + b), and compare-swap networks (sorting, min/max)
// compute MUX(s, a, b) and MUX(s, b, a) side by side: four bootstraps. With
// w = MAJ(s, a, b) both are affine in w:
//
//	MUX(s, a, b) = (¬a ∧ b) ⊕ w,    MUX(s, b, a) = (a ∧ ¬b) ⊕ w
//
// (s = 1: w = a ∨ b; s = 0: w = a ∧ b), and the two right-hand sides are
// functions of one weighted sum of (a, b, w), e.g. a - b + 2w at P = 4 with
// w entering at weight P/2, i.e. linearly. So the pair is MAJ plus one
// multi-output bootstrap: two bootstraps instead of four. rewriteMuxPairs
// applies it where the target evaluates all three tables (and the pair in
// one blind rotation); LUTMap maps the circuit with and without it and
// keeps the cheaper cover.

// Tables: MAJ over (s, a, b), and over (a, b, w) with a least significant.
var (
	muxPairMaj = tableOf3(func(s, a, b int) int { return (s & a) | (s & b) | (a & b) })
	muxPairLo  = tableOf3(func(a, b, w int) int { return ((1 - a) & b) ^ w })
	muxPairHi  = tableOf3(func(a, b, w int) int { return (a & (1 - b)) ^ w })
)

func tableOf3(f func(x, y, z int) int) uint64 {
	var t uint64
	for i := 0; i < 8; i++ {
		if f(i&1, i>>1&1, i>>2&1) == 1 {
			t |= 1 << uint(i)
		}
	}
	return t
}

// muxPairsUsable reports whether target evaluates the rewrite.
func muxPairsUsable(target LUTTarget) bool {
	mt, ok := target.(MultiLUTTarget)
	if !ok || target.MaxLUTInputs() < 3 || mt.MaxMultiLUTInputs() < 3 {
		return false
	}
	return target.CanEvalLUT(muxPairMaj, 3) && target.CanEvalLUT(muxPairLo, 3) && target.CanEvalLUT(muxPairHi, 3) &&
		mt.CanEvalMultiLUT([]uint64{muxPairLo, muxPairHi}, 3)
}

// findMuxPairs returns, for each MUX node that has a partner MUX(s, b, a),
// the partner's id (-1 otherwise).
func findMuxPairs(c *ir.Circuit) ([]ir.NodeID, int) {
	type key struct{ s, a, b ir.NodeID }
	seen := map[key]ir.NodeID{}
	partner := make([]ir.NodeID, len(c.Nodes))
	pairs := 0
	for i := range c.Nodes {
		partner[i] = -1
		n := &c.Nodes[i]
		if n.Op != ir.OpMux {
			continue
		}
		s, a, b := n.In[0], n.In[1], n.In[2]
		if a == b || s == a || s == b {
			continue
		}
		if j, ok := seen[key{s, b, a}]; ok && partner[j] < 0 {
			partner[i], partner[j] = j, ir.NodeID(i)
			pairs++
			continue
		}
		if _, ok := seen[key{s, a, b}]; !ok {
			seen[key{s, a, b}] = ir.NodeID(i)
		}
	}
	return partner, pairs
}

// rewriteMuxPairs rewrites every compare-swap MUX pair as above.
func rewriteMuxPairs(c *ir.Circuit, partner []ir.NodeID) (*ir.Circuit, error) {
	maj := map[ir.NodeID]ir.NodeID{} // first of a pair -> its new w
	b := ir.NewBuilder(c.Name)
	var in []ir.NodeID
	return rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[i]
		in = in[:0]
		for _, x := range n.In {
			in = append(in, m[x])
		}
		p := partner[i]
		if n.Op != ir.OpMux || p < 0 {
			return emitSame(b, n, in)
		}
		s, x, y := in[0], in[1], in[2]
		first := min(i, p)
		w, ok := maj[first]
		if !ok {
			w = b.LUT(muxPairMaj, s, x, y)
			maj[first] = w
		}
		// The first MUX(s, a, b) is (¬a ∧ b) ⊕ w over its own (a, b); its
		// partner MUX(s, b, a), with x = b and y = a, is (a ∧ ¬b) ⊕ w.
		if i == first {
			return b.LUT(muxPairLo, x, y, w)
		}
		return b.LUT(muxPairHi, y, x, w)
	})
}
