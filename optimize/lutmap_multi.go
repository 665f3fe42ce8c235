package optimize

import (
	"fmt"
	"sort"

	"github.com/hcc-fhe/hcc/ir"
)

// Multi-output bootstraps (ir.OpMLUT / ir.OpMOut, backend/fhew multilut.go):
// one blind rotation evaluates several functions of the same weighted sum
// Σ w_i·x_i, so two bootstrapped nodes of a mapped circuit whose leaves
// together fit one cut and whose functions share a weight vector cost one
// bootstrap instead of two. MultiLUTMerge groups such nodes after LUT
// mapping, greedily in program order:
//
//   - members are single-bootstrap nodes (two-input gates and LUTs; not
//     MUX, PARITY, or nodes already grouped) whose leaf union has at most
//     MaxMultiLUTInputs nodes, and the target evaluates all their functions
//     over the union in one blind rotation (CanEvalMultiLUT);
//   - the group is emitted where its last member was, so every consumer of
//     every member must come after that member (then moving the earlier
//     members down keeps the order topological: each edge still points
//     forward);
//   - extractions are noisier than bootstrap outputs (the factor t_h
//     multiplies the blind-rotation noise), so after merging, the target's
//     per-node failure (NodeFailureLog2) is checked against its bound, and
//     groups feeding a node over the bound (that was within it before) are
//     split again, until none is.
//
// Candidates for a node are the later nodes reading one of its leaves.

// MultiLUTTarget is implemented by targets with multi-output bootstraps.
type MultiLUTTarget interface {
	// MaxMultiLUTInputs is the widest shared input set (at most ir.MaxMLUTInputs).
	MaxMultiLUTInputs() int
	// CanEvalMultiLUT reports whether one bootstrap evaluates every table
	// (k inputs each) within the target's failure bound.
	CanEvalMultiLUT(tables []uint64, k int) bool
	// NodeFailureLog2 is each node's predicted bootstrap failure (log2, -Inf
	// for none) with its inputs' actual noise.
	NodeFailureLog2(c *ir.Circuit) ([]float64, error)
	// NodeFailureBound is the largest acceptable NodeFailureLog2 of a node of op.
	NodeFailureBound(op ir.Op) float64
}

// maxMergeCandidates bounds the partners tried per node (wide fanouts, e.g.
// key bits, would otherwise make the pass quadratic).
const maxMergeCandidates = 24

// MultiLUTMerge returns the pass that groups mapped nodes into
// multi-output bootstraps (see above). Run it after LUTMap; a target that
// is no MultiLUTTarget leaves the circuit unchanged.
func MultiLUTMerge(target LUTTarget) Pass {
	return Pass{
		Name: "multi-lut",
		Doc:  "requires a LUT-mapped circuit; ensures nodes sharing a weighted sum of at most MaxMultiLUTInputs leaves are one MLUT bootstrap with MOUT outputs",
		Run:  func(c *ir.Circuit) (*ir.Circuit, error) { return mergeMultiFor(c, target) },
	}
}

// mergeGroup is a set of members (node ids, ascending) and their leaves.
type mergeGroup struct {
	members []ir.NodeID
	leaves  []ir.NodeID // sorted
	tables  []uint64    // member j's function over leaves
}

// mergeMultiFor runs the grouping if target is a MultiLUTTarget.
func mergeMultiFor(c *ir.Circuit, target LUTTarget) (*ir.Circuit, error) {
	mt, ok := target.(MultiLUTTarget)
	if !ok || mt.MaxMultiLUTInputs() < 2 {
		return c, nil
	}
	return mergeMulti(c, mt)
}

func mergeMulti(c *ir.Circuit, mt MultiLUTTarget) (*ir.Circuit, error) {
	before, err := mt.NodeFailureLog2(c)
	if err != nil {
		return nil, err
	}
	groups := findGroups(c, mt)
	for round := 0; ; round++ {
		out, origin, err := emitGroups(c, groups)
		if err != nil {
			return nil, err
		}
		after, err := mt.NodeFailureLog2(out)
		if err != nil {
			return nil, err
		}
		bad := badGroups(c, out, origin, groups, before, after, mt)
		if len(bad) == 0 || round == 8 {
			if len(bad) != 0 { // give up merging what still violates
				for _, g := range bad {
					groups[g] = nil
				}
				return emitGroupsOnly(c, groups)
			}
			return out, nil
		}
		for _, g := range bad {
			groups[g] = nil
		}
	}
}

func emitGroupsOnly(c *ir.Circuit, groups []*mergeGroup) (*ir.Circuit, error) {
	out, _, err := emitGroups(c, groups)
	return out, err
}

// badGroups returns the groups (indices) with an output that reaches a
// node whose failure is over its bound after merging but was not before.
func badGroups(c, out *ir.Circuit, origin []ir.NodeID, groups []*mergeGroup, before, after []float64, mt MultiLUTTarget) []int {
	groupOf := map[ir.NodeID]int{}
	for g, gr := range groups {
		if gr == nil {
			continue
		}
		for _, x := range gr.members {
			groupOf[x] = g
		}
	}
	seen := map[int]bool{}
	var bad []int
	for i := range out.Nodes {
		n := &out.Nodes[i]
		bound := mt.NodeFailureBound(n.Op)
		if after[i] <= bound {
			continue
		}
		if o := origin[i]; o >= 0 && before[o] > bound && after[i] <= before[o]+1e-9 {
			continue // was already over its bound (a native gate) and got no worse
		}
		// Every grouped source among its fanins, through NOT chains.
		for _, f := range n.In {
			for out.Nodes[f].Op == ir.OpNot {
				f = out.Nodes[f].In[0]
			}
			o := origin[f]
			if o < 0 {
				continue
			}
			if g, ok := groupOf[o]; ok && !seen[g] {
				seen[g] = true
				bad = append(bad, g)
			}
		}
	}
	return bad
}

// mergeable reports whether node n may join a group: one bootstrap, one
// output, at most max leaves.
func mergeable(n *ir.Node, max int) bool {
	switch n.Op {
	case ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNand, ir.OpNor, ir.OpXnor, ir.OpAndNY:
		return n.In[0] != n.In[1]
	case ir.OpLUT:
		return len(n.In) <= max
	}
	return false
}

// findGroups is the greedy grouping in program order.
func findGroups(c *ir.Circuit, mt MultiLUTTarget) []*mergeGroup {
	K := min(mt.MaxMultiLUTInputs(), ir.MaxMLUTInputs)
	fanouts := make([][]ir.NodeID, len(c.Nodes))
	for i := range c.Nodes {
		for _, f := range c.Nodes[i].In {
			fanouts[f] = append(fanouts[f], ir.NodeID(i))
		}
	}
	// minConsumer[x] is the smallest index reading x (len(c.Nodes) if none;
	// outputs do not constrain the order).
	minConsumer := make([]int, len(c.Nodes))
	for i := range minConsumer {
		minConsumer[i] = len(c.Nodes)
		for _, f := range fanouts[i] {
			minConsumer[i] = min(minConsumer[i], int(f))
		}
	}
	grouped := make([]bool, len(c.Nodes))
	var groups []*mergeGroup
	var cands []ir.NodeID
	for a := range c.Nodes {
		na := &c.Nodes[a]
		if grouped[a] || !mergeable(na, K) {
			continue
		}
		g := &mergeGroup{members: []ir.NodeID{ir.NodeID(a)}, leaves: sortedUnique(na.In)}
		g.tables = []uint64{nodeTableOver(na, g.leaves)}
		cands = cands[:0]
		for _, l := range g.leaves {
			for _, b := range fanouts[l] {
				if int(b) > a && !grouped[b] && len(cands) < maxMergeCandidates*4 {
					cands = append(cands, b)
				}
			}
		}
		cands = sortedUnique(cands)
		if len(cands) > maxMergeCandidates {
			cands = cands[:maxMergeCandidates]
		}
		earliest := minConsumer[a] // the group sits at its last member: all consumers must follow it
		for _, b := range cands {
			nb := &c.Nodes[b]
			if grouped[b] || !mergeable(nb, K) || int(b) >= earliest {
				continue
			}
			u := sortedUnique(append(append([]ir.NodeID(nil), g.leaves...), nb.In...))
			if len(u) > K || len(g.members)+1 > 64>>uint(len(u)) {
				continue
			}
			tables := make([]uint64, 0, len(g.members)+1)
			for _, x := range g.members {
				tables = append(tables, nodeTableOver(&c.Nodes[x], u))
			}
			tables = append(tables, nodeTableOver(nb, u))
			if !mt.CanEvalMultiLUT(tables, len(u)) {
				continue
			}
			g.members = append(g.members, b)
			g.leaves, g.tables = u, tables
			earliest = min(earliest, minConsumer[b])
		}
		if len(g.members) < 2 {
			continue
		}
		// Consumers of earlier members must follow the last member.
		last := int(g.members[len(g.members)-1])
		ok := true
		for _, x := range g.members {
			ok = ok && minConsumer[x] > last
		}
		if !ok {
			continue
		}
		for _, x := range g.members {
			grouped[x] = true
		}
		groups = append(groups, g)
	}
	return groups
}

// nodeTableOver is n's function over leaves (sorted; a superset of n.In).
func nodeTableOver(n *ir.Node, leaves []ir.NodeID) uint64 {
	var in [3]uint64
	fan := n.In
	var vars [ir.MaxLUTInputs]uint64
	for j, f := range fan {
		vars[j] = projections[indexOf(leaves, f)]
	}
	var t uint64
	if n.Op == ir.OpLUT {
		t = ir.EvalTable(n.Table, vars[:len(fan)])
	} else {
		copy(in[:], vars[:len(fan)])
		t = ir.EvalGate(n.Op, 0, in[:len(fan)])
	}
	return maskTable(t, len(leaves))
}

func sortedUnique(xs []ir.NodeID) []ir.NodeID {
	out := append([]ir.NodeID(nil), xs...)
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	j := 0
	for i, x := range out {
		if i == 0 || x != out[j-1] {
			out[j] = x
			j++
		}
	}
	return out[:j]
}

// emitGroups writes c with every group as one MLUT (its first member) and
// MOUTs (the others) at the place of its last member; origin maps each new
// node to the old node it computes (-1 for none).
func emitGroups(c *ir.Circuit, groups []*mergeGroup) (*ir.Circuit, []ir.NodeID, error) {
	n := len(c.Nodes)
	key := make([]int, n)
	groupOf := make([]int, n)
	for i := range key {
		key[i], groupOf[i] = i, -1
	}
	for g, gr := range groups {
		if gr == nil {
			continue
		}
		last := int(gr.members[len(gr.members)-1])
		for _, x := range gr.members {
			key[x], groupOf[x] = last, g
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return key[order[a]] < key[order[b]] })
	out := &ir.Circuit{Name: c.Name}
	newID := make([]ir.NodeID, n)
	var origin []ir.NodeID
	emitted := make([]bool, len(groups))
	add := func(nd ir.Node, from ir.NodeID) ir.NodeID {
		out.Nodes = append(out.Nodes, nd)
		origin = append(origin, from)
		return ir.NodeID(len(out.Nodes) - 1)
	}
	for _, i := range order {
		nd := c.Nodes[i]
		g := groupOf[i]
		if g < 0 {
			in := make([]ir.NodeID, len(nd.In))
			for j, f := range nd.In {
				in[j] = newID[f]
			}
			nd.In = in
			newID[i] = add(nd, ir.NodeID(i))
			continue
		}
		if emitted[g] {
			continue
		}
		emitted[g] = true
		gr := groups[g]
		leaves := make([]ir.NodeID, len(gr.leaves))
		for j, l := range gr.leaves {
			leaves[j] = newID[l]
		}
		packed, ok := ir.PackMLUT(gr.tables, len(leaves))
		if !ok {
			return nil, nil, fmt.Errorf("optimize: internal error in pass \"multi-lut\": group tables do not pack")
		}
		root := add(ir.Node{Op: ir.OpMLUT, In: leaves, Table: packed, Pos: c.Nodes[gr.members[0]].Pos}, gr.members[0])
		newID[gr.members[0]] = root
		for j, x := range gr.members[1:] {
			in := append([]ir.NodeID{root}, leaves...)
			newID[x] = add(ir.Node{Op: ir.OpMOut, In: in, Table: gr.tables[j+1], Pos: c.Nodes[x].Pos}, x)
		}
	}
	out.Inputs = remapBuses(c.Inputs, newID)
	out.Outputs = remapBuses(c.Outputs, newID)
	if err := ir.Verify(out); err != nil {
		return nil, nil, fmt.Errorf("optimize: internal error in pass \"multi-lut\": %w", err)
	}
	return out, origin, nil
}

func remapBuses(bs []ir.Bus, newID []ir.NodeID) []ir.Bus {
	out := make([]ir.Bus, len(bs))
	for i, b := range bs {
		out[i] = b
		out[i].Dims = append([]int(nil), b.Dims...)
		out[i].Bits = make([]ir.NodeID, len(b.Bits))
		for j, id := range b.Bits {
			out[i].Bits[j] = newID[id]
		}
	}
	return out
}

// multiSaved is the bootstraps a grouped circuit saves: members beyond the
// first of every group.
func multiSaved(c *ir.Circuit) int {
	n := 0
	for i := range c.Nodes {
		if c.Nodes[i].Op == ir.OpMOut {
			n++
		}
	}
	return n
}
