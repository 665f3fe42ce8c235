package optimize

import (
	"container/heap"

	"github.com/hcc-fhe/hcc/ir"
)

// balanceTrees is stage 3 of AndDepth. c is over AND, XOR, NOT and LUT. An
// AND tree is a maximal set of AND gates in which every gate but the root
// has exactly one reader, an AND that reads it without negation; an XOR tree
// is the same with XOR gates, where negations do not matter (they move to the
// root). Each tree is rebuilt from its leaves, with the new AND-levels of the
// leaves as priorities: combining the two lowest first minimises the level of
// the root over all binary trees on those leaves (the cost max(x, y) + 1 is
// the one Golumbic's Huffman variant solves), so no root gets later than in
// the old tree. Repeated leaves are merged (x∧x = x, x⊕x = 0), x∧¬x gives 0.
// Ties go to the plain depth, so XOR trees, free for the AND-level, come out
// balanced as well.
func balanceTrees(c *ir.Circuit) (*ir.Circuit, error) {
	refs := make([]int32, len(c.Nodes))
	reader := make([]ir.NodeID, len(c.Nodes)) // the last gate reading the node (-1: an output)
	negRead := make([]bool, len(c.Nodes))     // whether that read was negated
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op == ir.OpNot { // transparent: its readers are counted on its base
			continue
		}
		for _, x := range n.In {
			base, neg := strip(c, x)
			refs[base]++
			reader[base], negRead[base] = ir.NodeID(i), neg
		}
	}
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			base, _ := strip(c, id)
			refs[base]++
			reader[base] = -1
		}
	}
	internal := func(id ir.NodeID) bool {
		op := c.Nodes[id].Op
		if refs[id] != 1 || reader[id] < 0 || (op != ir.OpAnd && op != ir.OpXor) {
			return false
		}
		r := c.Nodes[reader[id]].Op
		return r == op && (op == ir.OpXor || !negRead[id])
	}

	b := ir.NewBuilder(c.Name)
	lt := &levelTracker{b: b}
	var leaves []lit
	var collect func(id ir.NodeID, neg bool, op ir.Op, parity *bool)
	collect = func(id ir.NodeID, neg bool, op ir.Op, parity *bool) {
		for _, x := range c.Nodes[id].In {
			base, xneg := strip(c, x)
			if internal(base) {
				if op == ir.OpXor && xneg {
					*parity = !*parity
				}
				collect(base, false, op, parity)
				continue
			}
			leaves = append(leaves, lit{base, xneg})
		}
	}
	return rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[i]
		switch n.Op {
		case ir.OpConst0, ir.OpConst1:
			return b.Const(n.Op == ir.OpConst1)
		case ir.OpNot:
			if m[n.In[0]] < 0 { // reads an inner tree node; only its tree needed it
				return -1
			}
			return b.Not(m[n.In[0]])
		case ir.OpLUT:
			in := make([]ir.NodeID, len(n.In))
			for j, x := range n.In {
				base, neg := strip(c, x)
				in[j] = mappedLit(b, m, base, neg)
			}
			return lowerLUT(b, n.Table, in)
		case ir.OpAnd, ir.OpXor:
			if internal(i) {
				return -1 // built as part of its root's tree
			}
			leaves = leaves[:0]
			parity := false
			collect(i, false, n.Op, &parity)
			ids := make([]ir.NodeID, len(leaves))
			for j, l := range leaves {
				ids[j] = mappedLit(b, m, l.base, l.neg)
			}
			r := huffman(b, lt, n.Op, ids)
			if parity {
				r = b.Not(r)
			}
			return r
		}
		panic("optimize: internal error: and-depth balancing met " + n.Op.String())
	})
}

// lit is a signal: node base, negated if neg.
type lit struct {
	base ir.NodeID
	neg  bool
}

// huffman combines leaves with op (AND or XOR), always the two with the
// lowest (AND-level, depth) first. Repeated leaves are merged first: for AND
// a repeat is dropped and a complementary pair gives 0; for XOR negations
// move to the root (¬y ⊕ z = ¬(y ⊕ z)) and pairs cancel.
func huffman(b *ir.Builder, lt *levelTracker, op ir.Op, leaves []ir.NodeID) ir.NodeID {
	h := &levelHeap{}
	flip := false
	push := func(x ir.NodeID) {
		a, d := lt.level(x)
		heap.Push(h, levelItem{x, a, d})
	}
	if op == ir.OpXor {
		odd := map[ir.NodeID]bool{}
		negated := map[ir.NodeID]ir.NodeID{} // base -> an existing NOT of it among the leaves
		var order []ir.NodeID
		for _, x := range leaves {
			base, neg := x, false
			if nd := b.Node(x); nd.Op == ir.OpNot {
				base, neg = nd.In[0], true
				negated[base] = x
			}
			flip = flip != neg
			if _, seen := odd[base]; !seen {
				order = append(order, base)
			}
			odd[base] = !odd[base]
		}
		for _, x := range order {
			if !odd[x] {
				continue
			}
			// Put the parity back on a leaf whose NOT exists rather than
			// add a NOT at the root: same levels, one node fewer.
			if nx, ok := negated[x]; ok && flip {
				x, flip = nx, false
			}
			push(x)
		}
		if h.Len() == 0 {
			return b.Const(flip)
		}
	} else {
		pol := map[ir.NodeID]bool{} // base -> negated
		for _, x := range leaves {
			base, neg := x, false
			if nd := b.Node(x); nd.Op == ir.OpNot {
				base, neg = nd.In[0], true
			}
			if p, seen := pol[base]; seen {
				if p != neg {
					return b.Const(false) // y ∧ ¬y
				}
				continue
			}
			pol[base] = neg
			push(x)
		}
	}
	for h.Len() > 1 {
		x := heap.Pop(h).(levelItem)
		y := heap.Pop(h).(levelItem)
		if op == ir.OpAnd {
			push(b.And(x.id, y.id))
		} else {
			push(b.Xor(x.id, y.id))
		}
	}
	r := heap.Pop(h).(levelItem).id
	if flip {
		r = b.Not(r)
	}
	return r
}

// levelItem is a partial tree in huffman's queue.
type levelItem struct {
	id         ir.NodeID
	and, depth int32
}

// levelHeap is a min-heap of levelItems by (AND-level, depth, id); the id
// makes the order, and so the output, deterministic.
type levelHeap []levelItem

func (h levelHeap) Len() int { return len(h) }
func (h levelHeap) Less(i, j int) bool {
	if h[i].and != h[j].and {
		return h[i].and < h[j].and
	}
	if h[i].depth != h[j].depth {
		return h[i].depth < h[j].depth
	}
	return h[i].id < h[j].id
}
func (h levelHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *levelHeap) Push(x any)   { *h = append(*h, x.(levelItem)) }
func (h *levelHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
