package optimize

import "github.com/hcc-fhe/hcc/ir"

// distributeBudget bounds how deep distribute re-applies itself to the ANDs
// it creates: each level can save one more AND-level and costs more gates.
const distributeBudget = 3

// distributor rewrites ANDs whose late input is an XOR with a late AND
// inside (stage 4 of AndDepth). For p ∧ (Y ⊕ z∧w) with w the latest signal,
//
//	p ∧ (Y ⊕ z∧w) = p∧Y ⊕ (p∧z)∧w
//
// puts w one AND from the result instead of two: the level drops by one when
// p and z are earlier than w. This is the critical-path rewriting of Aubry,
// Carpov and Sirdey for multiplicative depth; it is what shortens S-boxes
// written as chains of multiply-then-add. It costs one or two ANDs per use,
// so it is taken only where it lowers the level (and, with required levels,
// only where the depth needs it).
type distributor struct {
	b  *ir.Builder
	lt *levelTracker
}

// and returns x ∧ y, rewritten by distribution if that lowers its level.
func (d *distributor) and(x, y ir.NodeID, budget int) ir.NodeID {
	best := d.b.And(x, y)
	if budget == 0 {
		return best
	}
	bestLv := d.lt.andLevel(best)
	for side := 0; side < 2; side++ {
		p, q := x, y
		if side == 1 {
			p, q = y, x
		}
		if r, ok := d.distribute(p, q, bestLv, budget); ok {
			if lv := d.lt.andLevel(r); lv < bestLv {
				best, bestLv = r, lv
			}
		}
	}
	return best
}

// distribute tries p ∧ q with q an XOR tree (through NOTs) holding exactly
// one leaf at q's level that is an AND; it returns p∧Y ⊕ (p∧z)∧w. Only XOR
// nodes at q's level are opened, the others stay leaves of Y.
func (d *distributor) distribute(p, q ir.NodeID, bestLv int32, budget int) (ir.NodeID, bool) {
	lq := d.lt.andLevel(q)
	if d.lt.andLevel(p) >= lq || lq+1 < bestLv {
		return 0, false // p is as late as q, or q is not what makes x∧y late
	}
	var others []ir.NodeID
	crit := ir.NodeID(-1)
	parity := false
	var walk func(id ir.NodeID) bool
	walk = func(id ir.NodeID) bool {
		n := d.b.Node(id)
		if n.Op == ir.OpNot {
			parity = !parity
			return walk(n.In[0])
		}
		if d.lt.andLevel(id) < lq {
			others = append(others, id)
			return true
		}
		switch n.Op {
		case ir.OpXor:
			return walk(n.In[0]) && walk(n.In[1])
		case ir.OpAnd:
			if crit >= 0 {
				return false // two late ANDs: distributing one does not help
			}
			crit = id
			return true
		}
		return false // a late LUT, input or constant
	}
	if !walk(q) || crit < 0 { // q an AND itself: Y = 0, plain re-association
		return 0, false
	}
	cn := d.b.Node(crit)
	z, w := cn.In[0], cn.In[1]
	if d.lt.andLevel(z) > d.lt.andLevel(w) {
		z, w = w, z
	}
	y := d.b.Const(parity)
	for _, o := range others {
		y = d.b.Xor(y, o)
	}
	pz := d.and(p, z, budget-1)
	return d.b.Xor(d.and(p, y, budget-1), d.and(pz, w, budget-1)), true
}

// distributeAnds rebuilds c (over AND, XOR, NOT, LUT) with every AND passed
// through the distributor. With req non-nil an AND is rewritten only when
// its plain form would be later than req for it.
func distributeAnds(c *ir.Circuit, req []int32) (*ir.Circuit, error) {
	b := ir.NewBuilder(c.Name)
	d := &distributor{b: b, lt: &levelTracker{b: b}}
	return rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[i]
		in := make([]ir.NodeID, len(n.In))
		for j, x := range n.In {
			in[j] = m[x]
		}
		switch n.Op {
		case ir.OpAnd:
			if req == nil {
				return d.and(in[0], in[1], distributeBudget)
			}
			// Area recovery: the smallest rewrite that meets the requirement.
			var r ir.NodeID
			for budget := 0; budget <= distributeBudget; budget++ {
				if r = d.and(in[0], in[1], budget); d.lt.andLevel(r) <= req[i] {
					break
				}
			}
			return r
		case ir.OpLUT:
			return lowerLUT(b, n.Table, in)
		}
		return lowerGate(b, n.Op, in)
	})
}

// requiredLevels returns the latest AND-level each node of c may have for
// the outputs to be ready by target, in c's own structure.
func requiredLevels(c *ir.Circuit, target int32) []int32 {
	req := make([]int32, len(c.Nodes))
	for i := range req {
		req[i] = 1 << 30
	}
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			req[id] = min(req[id], target)
		}
	}
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		r := req[i] - int32(ir.AndCost(&c.Nodes[i]))
		for _, x := range c.Nodes[i].In {
			req[x] = min(req[x], r)
		}
	}
	return req
}
