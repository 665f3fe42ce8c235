package optimize

import "github.com/hcc-fhe/hcc/ir"

// AndDepth lowers the multiplicative depth (ir.Stats.AndDepth) for leveled
// schemes such as BGV, where an AND costs one ciphertext level and XOR and
// NOT are free. It works in stages, each a rebuild that never raises the
// AND-level of any signal:
//
//  1. lowering to AND/XOR/NOT: OR, NAND, NOR and ANDNY become ANDs with free
//     negations (De Morgan), so OR chains join AND trees; MUX(s, t, f)
//     becomes f ⊕ s∧(t ⊕ f), one level like the MUX itself; LUTs of
//     algebraic degree at most two become their ANF (one level, as before);
//  2. adder networks: output words computed by full and half adders (array
//     multipliers, adders) are recomputed from the bits entering the network
//     by column compression and a prefix adder (depth_arith.go);
//  3. carry chains: chains of majority gates c' = c ⊕ (a⊕c)(b⊕c), the
//     ripple carries of Bristol and stdlib adders, are recomputed with
//     Sklansky parallel-prefix blocks wherever that gives a carry an earlier
//     level (depth_carry.go);
//  4. balancing: every maximal single-fanout AND tree and XOR tree is
//     rebuilt Huffman-style from the arrival levels of its leaves (combine
//     the two shallowest first), which is level-optimal for such a tree;
//  5. distribution: p ∧ (Y ⊕ z∧w) = p∧Y ⊕ (p∧z)∧w where w is late
//     (depth_distribute.go), then balancing again.
//
// Stages 2, 3 and 5 may add ANDs and are dropped if they do not lower the
// depth; 3 and 5 run once for the lowest levels and once with area recovery
// against the depth that reached. Replaced logic is left for DCE.
var AndDepth = Pass{
	Name: "and-depth",
	Doc:  "requires a verified circuit; ensures every gate is AND, XOR, NOT or a LUT of degree three or more, and the AND-depth is not higher than before; leaves dead gates",
	Run:  andDepth,
}

// andDepth runs the stages; if their result were deeper than the input
// (each stage is meant never to raise a level, but the promise is the
// pass's, so it is checked here), it returns the lowered input instead.
func andDepth(in *ir.Circuit) (*ir.Circuit, error) {
	low, err := lowerXAG(in)
	if err != nil {
		return nil, err
	}
	if low, err = deadGateRemoval(low); err != nil {
		return nil, err
	}
	c, err := ifDeeperKeep(low, resynthAdders)
	if err != nil {
		return nil, err
	}
	c, err = cheapestGain(c, carryPrefix, func(c *ir.Circuit, target int32) []int32 { return carryRequired(c, target) })
	if err != nil {
		return nil, err
	}
	if c, err = balanceTrees(c); err != nil {
		return nil, err
	}
	// Balancing leaves dead nodes of any op behind (lowering a LUT that
	// folds to a two-input gate emits that gate, then its AND/XOR form),
	// and the stages below rebuild every node, dead or not: an XNOR left
	// here once stopped the second balancing with an internal error.
	if c, err = deadGateRemoval(c); err != nil {
		return nil, err
	}
	c, err = cheapestGain(c, distributeAnds, requiredLevels)
	if err != nil {
		return nil, err
	}
	if c, err = balanceTrees(c); err != nil {
		return nil, err
	}
	if andDepthOf(c) > andDepthOf(in) {
		return low, nil
	}
	return c, nil
}

// ifDeeperKeep runs stage on c and returns its result (without dead gates)
// if that has a lower AND-depth, and c otherwise.
func ifDeeperKeep(c *ir.Circuit, stage func(*ir.Circuit) (*ir.Circuit, error)) (*ir.Circuit, error) {
	d, err := stage(c)
	if err != nil {
		return nil, err
	}
	if d, err = deadGateRemoval(d); err != nil {
		return nil, err
	}
	if andDepthOf(d) < andDepthOf(c) {
		return d, nil
	}
	return c, nil
}

// cheapestGain runs a level-driven stage twice: first with no required
// levels (every rewrite that lowers a signal's level), then, if the depth
// went down, with area recovery against the depth reached (rewrites only
// where the required levels ask for them). It returns the smaller result
// that keeps the gain, or c itself if the stage gained nothing (its extra
// gates would buy no level).
func cheapestGain(c *ir.Circuit, stage func(*ir.Circuit, []int32) (*ir.Circuit, error), required func(*ir.Circuit, int32) []int32) (*ir.Circuit, error) {
	fast, err := stage(c, nil)
	if err != nil {
		return nil, err
	}
	if fast, err = deadGateRemoval(fast); err != nil {
		return nil, err
	}
	target := int32(andDepthOf(fast))
	if int(target) >= andDepthOf(c) {
		return c, nil
	}
	lean, err := stage(c, required(c, target))
	if err != nil {
		return nil, err
	}
	if lean, err = deadGateRemoval(lean); err != nil {
		return nil, err
	}
	if andDepthOf(lean) <= int(target) && len(lean.Nodes) < len(fast.Nodes) {
		return lean, nil
	}
	return fast, nil
}

// andDepthOf is ir.Stats.AndDepth without the rest of the statistics.
func andDepthOf(c *ir.Circuit) int {
	lv := ir.Levels(c, ir.AndCost)
	d := 0
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			d = max(d, lv[id])
		}
	}
	return d
}

// strip follows NOT gates from id to the first node that is not a NOT and
// reports whether an odd number of them was crossed: the signal id is
// base ⊕ neg, and base is what structure matching looks at.
func strip(c *ir.Circuit, id ir.NodeID) (base ir.NodeID, neg bool) {
	for c.Nodes[id].Op == ir.OpNot {
		id = c.Nodes[id].In[0]
		neg = !neg
	}
	return id, neg
}

// levelTracker knows the AND-level and the plain depth of every node a
// Builder has created so far, computing them as the builder grows (the
// builder appends in topological order, and may return old or folded nodes,
// so levels are read off the nodes it actually made).
type levelTracker struct {
	b          *ir.Builder
	and, depth []int32
}

// level returns the AND-level and the plain depth of id.
func (t *levelTracker) level(id ir.NodeID) (and, depth int32) {
	for i := len(t.and); i < t.b.Len(); i++ {
		n := t.b.Node(ir.NodeID(i))
		var a, d int32
		for _, x := range n.In {
			a = max(a, t.and[x])
			d = max(d, t.depth[x])
		}
		if n.Op.IsGate() {
			a += int32(ir.AndCost(n))
			d++
		}
		t.and = append(t.and, a)
		t.depth = append(t.depth, d)
	}
	return t.and[id], t.depth[id]
}

// andLevel is level's first result.
func (t *levelTracker) andLevel(id ir.NodeID) int32 {
	a, _ := t.level(id)
	return a
}

// mappedLit returns the new node for the old signal base ⊕ neg.
func mappedLit(b *ir.Builder, m []ir.NodeID, base ir.NodeID, neg bool) ir.NodeID {
	if m[base] < 0 {
		panic("optimize: internal error: node used before it was emitted")
	}
	if neg {
		return b.Not(m[base])
	}
	return m[base]
}
