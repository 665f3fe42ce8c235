package optimize

import (
	"container/heap"
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
//   - no member's output may reach another member (findGroups searches
//     forward from the members); the circuit is re-sorted with every group
//     as one unit, and groups that close a cycle through other groups are
//     split again (emitGroups);
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
		out, origin, cyclic, err := emitGroups(c, groups)
		if err != nil {
			return nil, err
		}
		if len(cyclic) > 0 { // split the groups on cycles and try again
			for _, g := range cyclic {
				groups[g] = nil
			}
			continue
		}
		after, err := mt.NodeFailureLog2(out)
		if err != nil {
			return nil, err
		}
		bad := badGroups(out, origin, groups, before, after, mt)
		if len(bad) == 0 {
			return out, nil
		}
		if round >= 8 { // give up merging what still violates
			for g := range groups {
				groups[g] = nil
			}
		}
		for _, g := range bad {
			groups[g] = nil
		}
	}
}

// badGroups returns the groups (indices) with an output that reaches a
// node whose failure is over its bound after merging but was not before.
func badGroups(out *ir.Circuit, origin []ir.NodeID, groups []*mergeGroup, before, after []float64, mt MultiLUTTarget) []int {
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

// findGroups is the greedy grouping in program order: candidates for a
// group are the later nodes reading one of its leaves, tried in program
// order; one joins if the tables still share a weighted sum and no
// member's output reaches it (a forward search from the members, which
// stays below the candidate's index and gives up after maxPathSearch
// nodes). Paths through other groups can still close a cycle; emitGroups
// finds those and mergeMulti splits the groups involved.
func findGroups(c *ir.Circuit, mt MultiLUTTarget) []*mergeGroup {
	K := min(mt.MaxMultiLUTInputs(), ir.MaxMLUTInputs)
	fanouts := make([][]ir.NodeID, len(c.Nodes))
	for i := range c.Nodes {
		for _, f := range c.Nodes[i].In {
			fanouts[f] = append(fanouts[f], ir.NodeID(i))
		}
	}
	grouped := make([]bool, len(c.Nodes))
	mark := make([]int32, len(c.Nodes)) // search stamps
	stamp := int32(0)
	var stack []ir.NodeID
	// reaches reports whether a path leads from a member to b (or the
	// search is too large to tell).
	reaches := func(members []ir.NodeID, b ir.NodeID) bool {
		stamp++
		stack = append(stack[:0], members...)
		visited := 0
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range fanouts[x] {
				if y == b {
					return true
				}
				if y > b || mark[y] == stamp {
					continue
				}
				mark[y] = stamp
				if visited++; visited > maxPathSearch {
					return true
				}
				stack = append(stack, y)
			}
		}
		return false
	}
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
		for _, b := range cands {
			nb := &c.Nodes[b]
			if grouped[b] || !mergeable(nb, K) {
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
			if !mt.CanEvalMultiLUT(tables, len(u)) || reaches(g.members, b) {
				continue
			}
			g.members = append(g.members, b)
			g.leaves, g.tables = u, tables
		}
		if len(g.members) < 2 {
			continue
		}
		for _, x := range g.members {
			grouped[x] = true
		}
		groups = append(groups, g)
	}
	return groups
}

// maxPathSearch bounds findGroups' reachability search per candidate.
const maxPathSearch = 4096

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
// MOUTs (the others); origin maps each new node to the old node it computes
// (-1 for none). Nodes are ordered by a topological sort of the graph with
// each group contracted to one unit, taking the ready unit whose last
// member comes first (program order where nothing moved). If groups close
// a cycle, it returns them in cyclic and no circuit.
func emitGroups(c *ir.Circuit, groups []*mergeGroup) (out *ir.Circuit, origin []ir.NodeID, cyclic []int, err error) {
	n := len(c.Nodes)
	unit := make([]int, n) // unit id: the node's own index, or n + group index
	for i := range unit {
		unit[i] = i
	}
	for g, gr := range groups {
		if gr == nil {
			continue
		}
		for _, x := range gr.members {
			unit[x] = n + g
		}
	}
	nu := n + len(groups)
	key := make([]int, nu) // the unit's last node
	size := make([]int, nu)
	for i := 0; i < n; i++ {
		size[unit[i]]++
		key[unit[i]] = i
	}
	indeg := make([]int, nu)
	succ := make([][]int, nu)
	for i := range c.Nodes {
		for _, f := range c.Nodes[i].In {
			if uf, ui := unit[f], unit[i]; uf != ui {
				succ[uf] = append(succ[uf], ui)
				indeg[ui]++
			}
		}
	}
	ready := &unitHeap{key: key}
	units := 0
	for u := 0; u < nu; u++ {
		if size[u] == 0 {
			continue
		}
		units++
		if indeg[u] == 0 {
			heap.Push(ready, u)
		}
	}
	out = &ir.Circuit{Name: c.Name}
	newID := make([]ir.NodeID, n)
	add := func(nd ir.Node, from ir.NodeID) ir.NodeID {
		out.Nodes = append(out.Nodes, nd)
		origin = append(origin, from)
		return ir.NodeID(len(out.Nodes) - 1)
	}
	done := 0
	for ready.Len() > 0 {
		u := heap.Pop(ready).(int)
		done++
		for _, v := range succ[u] {
			if indeg[v]--; indeg[v] == 0 {
				heap.Push(ready, v)
			}
		}
		if u < n {
			nd := c.Nodes[u]
			in := make([]ir.NodeID, len(nd.In))
			for j, f := range nd.In {
				in[j] = newID[f]
			}
			nd.In = in
			newID[u] = add(nd, ir.NodeID(u))
			continue
		}
		gr := groups[u-n]
		leaves := make([]ir.NodeID, len(gr.leaves))
		for j, l := range gr.leaves {
			leaves[j] = newID[l]
		}
		packed, ok := ir.PackMLUT(gr.tables, len(leaves))
		if !ok {
			return nil, nil, nil, fmt.Errorf("optimize: internal error in pass \"multi-lut\": group tables do not pack")
		}
		root := add(ir.Node{Op: ir.OpMLUT, In: leaves, Table: packed, Pos: c.Nodes[gr.members[0]].Pos}, gr.members[0])
		newID[gr.members[0]] = root
		for j, x := range gr.members[1:] {
			in := append([]ir.NodeID{root}, leaves...)
			newID[x] = add(ir.Node{Op: ir.OpMOut, In: in, Table: gr.tables[j+1], Pos: c.Nodes[x].Pos}, x)
		}
	}
	if done < units { // the rest sits on cycles through groups (or behind them)
		for u := n; u < nu; u++ {
			if size[u] > 0 && indeg[u] > 0 {
				cyclic = append(cyclic, u-n)
			}
		}
		return nil, nil, cyclic, nil
	}
	out.Inputs = remapBuses(c.Inputs, newID)
	out.Outputs = remapBuses(c.Outputs, newID)
	if err := ir.Verify(out); err != nil {
		return nil, nil, nil, fmt.Errorf("optimize: internal error in pass \"multi-lut\": %w", err)
	}
	return out, origin, nil, nil
}

// unitHeap orders ready units by their last node.
type unitHeap struct {
	key []int
	u   []int
}

func (h *unitHeap) Len() int           { return len(h.u) }
func (h *unitHeap) Less(i, j int) bool { return h.key[h.u[i]] < h.key[h.u[j]] }
func (h *unitHeap) Swap(i, j int)      { h.u[i], h.u[j] = h.u[j], h.u[i] }
func (h *unitHeap) Push(x any)         { h.u = append(h.u, x.(int)) }
func (h *unitHeap) Pop() any {
	x := h.u[len(h.u)-1]
	h.u = h.u[:len(h.u)-1]
	return x
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
