package optimize

import (
	"math/bits"

	"github.com/hcc-fhe/hcc/ir"
)

// majority describes a gate n = C ⊕ (A'⊕C)∧(B'⊕C) ⊕ k, the carry of a full
// adder with carry-in C: expanding, n = g ⊕ p∧C with generate g = A'∧B' ⊕ k
// and propagate p = A' ⊕ B', neither of which reads C.
type majority struct {
	carry ir.NodeID // C, a node of the old circuit
	a, b  lit       // A' and B' as signals of the old circuit
	k     bool
}

// carryChain is a path of majority gates m_1..m_n, each the carry-in of the
// next and read by no other majority gate as carry; m_0 is the first one's
// carry-in, any node.
type carryChain struct {
	nodes []ir.NodeID // m_0, m_1, ..., m_n
	// gp holds the new (generate, propagate) of element i; ranges memoises
	// the Sklansky blocks (see rangeGP).
	gp     map[int][2]ir.NodeID
	ranges map[[2]int][2]ir.NodeID
}

// matchMajority recognises n = u ⊕ v with v = (x ∧ y) ⊕ nv, x and y XOR gates
// that both read the base of u (the carry) next to one other signal.
func matchMajority(c *ir.Circuit, n *ir.Node) (majority, bool) {
	if n.Op != ir.OpXor {
		return majority{}, false
	}
	for side := 0; side < 2; side++ {
		cb, nu := strip(c, n.In[side])
		vb, nv := strip(c, n.In[1-side])
		and := &c.Nodes[vb]
		if and.Op != ir.OpAnd {
			continue
		}
		a, okA := otherXorInput(c, and.In[0], cb)
		b, okB := otherXorInput(c, and.In[1], cb)
		if !okA || !okB {
			continue
		}
		return majority{carry: cb, a: a, b: b, k: nu != nv}, true
	}
	return majority{}, false
}

// otherXorInput matches the signal x = A' ⊕ C, where C is node cb: x (through
// NOTs) is an XOR gate with cb (through NOTs) on one side; it returns A', the
// other side with every negation on the way folded in.
func otherXorInput(c *ir.Circuit, x, cb ir.NodeID) (lit, bool) {
	xb, neg := strip(c, x)
	g := &c.Nodes[xb]
	if g.Op != ir.OpXor {
		return lit{}, false
	}
	for side := 0; side < 2; side++ {
		if b, n := strip(c, g.In[side]); b == cb {
			ob, on := strip(c, g.In[1-side])
			if ob == cb {
				return lit{}, false
			}
			return lit{ob, on != n != neg}, true
		}
	}
	return lit{}, false
}

// carryChains finds the majority gates of c and links them into chains.
type carryChains struct {
	majs    map[ir.NodeID]majority
	chainOf map[ir.NodeID]*carryChain
	pos     map[ir.NodeID]int // position of a chain node, 1..n
}

func findCarryChains(c *ir.Circuit) *carryChains {
	cc := &carryChains{majs: map[ir.NodeID]majority{}, chainOf: map[ir.NodeID]*carryChain{}, pos: map[ir.NodeID]int{}}
	carrySucc := map[ir.NodeID]int{}
	for i := range c.Nodes {
		if mj, ok := matchMajority(c, &c.Nodes[i]); ok {
			cc.majs[ir.NodeID(i)] = mj
			carrySucc[mj.carry]++
		}
	}
	for i := range c.Nodes { // topological order: a carry-in is placed before its reader
		id := ir.NodeID(i)
		mj, ok := cc.majs[id]
		if !ok {
			continue
		}
		ch := cc.chainOf[mj.carry]
		if ch == nil || carrySucc[mj.carry] != 1 || cc.pos[mj.carry] != len(ch.nodes)-1 {
			ch = &carryChain{nodes: []ir.NodeID{mj.carry}, gp: map[int][2]ir.NodeID{}, ranges: map[[2]int][2]ir.NodeID{}}
		}
		ch.nodes = append(ch.nodes, id)
		cc.chainOf[id], cc.pos[id] = ch, len(ch.nodes)-1
	}
	return cc
}

// carryPrefix is stage 2 of AndDepth: it finds chains of majority gates (a
// ripple-carry adder's carries) and recomputes each carry c_j as one of: the
// old gate on the new carry-in (ripple), or c_j = G[lo..j] ⊕ P[lo..j]∧c_{lo-1}
// for a split point lo of the Sklansky decomposition of 1..j, where c_{lo-1}
// is the carry already chosen at lo-1. The block values (G, P) are combined
// as (G2, P2)∘(G1, P1) = (G2 ⊕ P2∧G1, P2∧P1) and shared between carries
// through a memo, which is the Sklansky prefix network; the splits at late
// carries make it adapt to unequal arrival times.
//
// With req nil each carry takes the option of lowest AND-level (ties to
// ripple). With req (a required level per old node, see carryRequired) each
// carry takes the cheapest option that meets its requirement (ripple, then
// ever longer blocks), falling back to the lowest level: this is area
// recovery, the prefix logic then sits only where the depth needs it.
// Options not taken are dead logic.
func carryPrefix(c *ir.Circuit, req []int32) (*ir.Circuit, error) {
	cc := findCarryChains(c)
	b := ir.NewBuilder(c.Name)
	lt := &levelTracker{b: b}
	return rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[i]
		in := make([]ir.NodeID, len(n.In))
		for j, x := range n.In {
			in[j] = m[x]
		}
		var ripple ir.NodeID
		if n.Op == ir.OpLUT {
			ripple = lowerLUT(b, n.Table, in)
		} else {
			ripple = lowerGate(b, n.Op, in)
		}
		ch := cc.chainOf[i]
		if ch == nil {
			return ripple
		}
		j := cc.pos[i]
		elem := func(t int) [2]ir.NodeID {
			if v, ok := ch.gp[t]; ok {
				return v
			}
			mj := cc.majs[ch.nodes[t]]
			a := mappedLit(b, m, mj.a.base, mj.a.neg)
			bb := mappedLit(b, m, mj.b.base, mj.b.neg)
			g := b.And(a, bb)
			if mj.k {
				g = b.Not(g)
			}
			v := [2]ir.NodeID{g, b.Xor(a, bb)}
			ch.gp[t] = v
			return v
		}
		options := []ir.NodeID{ripple} // cheapest first
		var splits []ir.NodeID
		for lo := 1; lo < j; {
			gp := ch.rangeGP(b, elem, lo, j)
			splits = append(splits, b.Xor(gp[0], b.And(gp[1], m[ch.nodes[lo-1]])))
			lo += 1 << (bits.Len(uint(j-lo)) - 1) // the next split, as in rangeGP
		}
		for k := len(splits) - 1; k >= 0; k-- { // shorter blocks are cheaper
			options = append(options, splits[k])
		}
		if req != nil {
			for _, o := range options {
				if lt.andLevel(o) <= req[i] {
					return o
				}
			}
		}
		best := ripple
		for _, o := range options {
			if lt.andLevel(o) < lt.andLevel(best) {
				best = o
			}
		}
		return best
	})
}

// carryRequired returns, for a target AND-depth, the level each node of c
// must not exceed: outputs must be ready by target and every gate's fanins
// one cost earlier, except that a chain carry c_j places no requirement on
// its own gate's fanins (a prefix option replaces them) but asks its block
// inputs A_t, B_t (t <= j) to be ready 2 + ceil(log2 j) levels earlier (one
// AND for the generate, the Sklansky depth over j elements, one AND for the
// carry-in) and the chain's carry-in c_0 one level earlier. These are
// estimates for the prefix options; andDepth keeps the result only if the
// target is met.
func carryRequired(c *ir.Circuit, target int32) []int32 {
	cc := findCarryChains(c)
	const free = int32(1 << 30)
	req := make([]int32, len(c.Nodes))
	for i := range req {
		req[i] = free
	}
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			req[id] = min(req[id], target)
		}
	}
	type running struct{ inputs, carryIn int32 }
	chainMin := map[*carryChain]*running{}
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		n := &c.Nodes[i]
		ch := cc.chainOf[ir.NodeID(i)]
		if ch == nil {
			r := req[i] - int32(ir.AndCost(n))
			for _, x := range n.In {
				req[x] = min(req[x], r)
			}
			continue
		}
		j := cc.pos[ir.NodeID(i)]
		run := chainMin[ch]
		if run == nil {
			run = &running{free, free}
			chainMin[ch] = run
		}
		// Backward order visits c_n, ..., c_1: the running minima cover j' >= j.
		run.inputs = min(run.inputs, req[i]-2-int32(bits.Len(uint(j-1))))
		run.carryIn = min(run.carryIn, req[i]-1)
		mj := cc.majs[ir.NodeID(i)]
		req[mj.a.base] = min(req[mj.a.base], run.inputs)
		req[mj.b.base] = min(req[mj.b.base], run.inputs)
		if j == 1 {
			req[ch.nodes[0]] = min(req[ch.nodes[0]], run.carryIn)
		}
	}
	return req
}

// rangeGP returns the block (G, P) of elements lo..hi of the chain: c_hi =
// G ⊕ P∧c_{lo-1}. Blocks split at the highest power of two below their
// length, so the ones that carries share are aligned and depth is
// ceil(log2(hi-lo+1)) above the latest element.
func (ch *carryChain) rangeGP(b *ir.Builder, elem func(int) [2]ir.NodeID, lo, hi int) [2]ir.NodeID {
	if lo == hi {
		return elem(lo)
	}
	key := [2]int{lo, hi}
	if v, ok := ch.ranges[key]; ok {
		return v
	}
	h := bits.Len(uint(hi-lo)) - 1
	mid := lo + 1<<h
	upper := ch.rangeGP(b, elem, mid, hi)
	lower := ch.rangeGP(b, elem, lo, mid-1)
	v := [2]ir.NodeID{b.Xor(upper[0], b.And(upper[1], lower[0])), b.And(upper[1], lower[1])}
	ch.ranges[key] = v
	return v
}
