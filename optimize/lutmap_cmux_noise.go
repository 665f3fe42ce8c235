package optimize

import "github.com/hcc-fhe/hcc/ir"

// CMux noise (lutmap_cmux.go). A CMux does not bootstrap: its output's
// noise is its data inputs' (the larger) plus the CMux's own, so chains of
// CMuxes (a remainder bit selected row after row) grow until a consumer, or
// the chain's own output, fails too often. fixCMuxNoise asks the target for
// every node's failure and, while some node over its bound owes that to a
// CMux, acts on the first offenders of each chain (those whose CMux fanins
// are within bound; the ones after them may be fixed by the same action):
//
//   - a consumer (any node but OpSel/OpCMux, e.g. a LUT or an OpSel's
//     input) over its bound that reads a CMux: the noisiest CMux it reads
//     (through NOTs) is refreshed, i.e. an identity bootstrap, a 1-input
//     OpLUT of table 0b10, is inserted after it and every gate reading it
//     reads the refresh instead (outputs keep the CMux: its own failure is
//     within bound);
//   - a CMux over its bound, or a refresh over its bound: the noisiest
//     CMux among its data inputs is refreshed as above (the latest point
//     of the chain, so refreshes are as far apart as the noise allows); if
//     its data inputs are no CMuxes, the CMux is undone (an OpMux again);
//   - an OpSel over its bound (its circuit bootstrap's input too noisy):
//     its input is refreshed if it is a CMux, else every CMux on the select
//     is undone.
//
// Then the failures are recomputed, until no offender of this kind is
// left. Every CMux is refreshed or undone at most once, so this ends; the
// result has every node that reads a CMux, and every OpSel and OpCMux,
// within its bound. Offenders that read no CMux are the cover's own
// business (mergeMulti's rule: a native gate may already be over) and are
// left alone. Nothing after LUTMap folds a refresh (ForLUTs ends with it);
// it costs one bootstrap in coverCost like any LUT.

// refreshTable is the identity on one input: a refresh bootstrap.
const refreshTable = 0b10

// isRefresh reports whether n is a refresh of a CMux.
func isRefresh(c *ir.Circuit, n *ir.Node) bool {
	return n.Op == ir.OpLUT && len(n.In) == 1 && n.Table == refreshTable && c.Nodes[n.In[0]].Op == ir.OpCMux
}

// fixCMuxNoise refreshes or undoes CMuxes of c until every node that owes
// its failure to a CMux is within its bound (see above). It returns nil if
// that takes more rounds than the circuit has CMuxes twice over (it cannot
// by the argument above; a guard against a target whose failures are not
// monotone in the noise).
func fixCMuxNoise(c *ir.Circuit, st SelectTarget) (*ir.Circuit, error) {
	limit := 2
	for i := range c.Nodes {
		if c.Nodes[i].Op == ir.OpCMux {
			limit += 2
		}
	}
	for round := 0; round < limit; round++ {
		fail, err := st.NodeFailureLog2(c)
		if err != nil {
			return nil, err
		}
		over := func(x ir.NodeID) bool { return fail[x] > st.NodeFailureBound(c.Nodes[x].Op) }
		refresh := map[ir.NodeID]bool{}
		undo := map[ir.NodeID]bool{}
		// noisiest returns the CMux among fanins (through NOTs) with the
		// largest failure, and whether any of them is over its bound.
		noisiest := func(fanins []ir.NodeID) (best ir.NodeID, anyOver bool) {
			best = -1
			for _, f := range fanins {
				x, _ := throughNots(c, f)
				if c.Nodes[x].Op != ir.OpCMux {
					continue
				}
				anyOver = anyOver || over(x)
				if best < 0 || fail[x] > fail[best] {
					best = x
				}
			}
			return best, anyOver
		}
		// reduce acts for CMux x, whose data inputs are too noisy.
		reduce := func(x ir.NodeID) {
			if d, _ := noisiest(c.Nodes[x].In[1:]); d >= 0 {
				refresh[d] = true
			} else {
				undo[x] = true
			}
		}
		for i := range c.Nodes {
			id := ir.NodeID(i)
			nd := &c.Nodes[i]
			if !over(id) {
				continue
			}
			switch {
			case nd.Op == ir.OpCMux:
				if _, up := noisiest(nd.In[1:]); !up {
					reduce(id)
				}
			case isRefresh(c, nd):
				if x := nd.In[0]; !over(x) {
					reduce(x)
				}
			case nd.Op == ir.OpSel:
				if x, _ := throughNots(c, nd.In[0]); c.Nodes[x].Op == ir.OpCMux {
					if !over(x) {
						refresh[x] = true
					}
				} else {
					for j := i + 1; j < len(c.Nodes); j++ {
						if c.Nodes[j].Op == ir.OpCMux && c.Nodes[j].In[0] == id {
							undo[ir.NodeID(j)] = true
						}
					}
				}
			default:
				if x, up := noisiest(nd.In); x >= 0 && !up {
					refresh[x] = true
				}
			}
		}
		if len(refresh) == 0 && len(undo) == 0 {
			return c, nil
		}
		if c, err = applyCMuxFixes(c, refresh, undo); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// applyCMuxFixes rebuilds c with a refresh after every node in refresh
// (read by every gate that read the node) and every CMux in undo as the
// OpMux it computes; selects left without CMuxes are dropped.
func applyCMuxFixes(c *ir.Circuit, refresh, undo map[ir.NodeID]bool) (*ir.Circuit, error) {
	b := ir.NewBuilder(c.Name)
	b.SetFolding(false)
	b.SetHashing(false)
	fresh := map[ir.NodeID]ir.NodeID{} // old node -> its refresh
	r, err := rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := c.Nodes[i]
		look := func(x ir.NodeID) ir.NodeID {
			if y, ok := fresh[x]; ok {
				return y
			}
			return m[x]
		}
		in := make([]ir.NodeID, len(n.In))
		for j, x := range n.In {
			in[j] = look(x)
		}
		if undo[i] { // MUX on the select's input
			in[0] = look(c.Nodes[n.In[0]].In[0])
			n.Op = ir.OpMux
		}
		n.In = in
		id := b.Raw(n)
		if refresh[i] {
			fresh[i] = b.Raw(ir.Node{Op: ir.OpLUT, In: []ir.NodeID{id}, Table: refreshTable, Pos: n.Pos})
		}
		return id
	})
	if err != nil {
		return nil, err
	}
	return deadGateRemoval(r)
}
