package optimize

import "github.com/hcc-fhe/hcc/ir"

// CMux noise (lutmap_cmux.go). A CMux does not bootstrap: its output's
// noise is its data inputs' (the larger) plus the CMux's own, so chains of
// CMuxes (a remainder bit selected row after row) grow until a consumer, or
// the chain's own output, fails too often. fixCMuxNoise fixes that in two
// steps.
//
// Spacing. A CMux's depth is the length of the longest chain of CMuxes
// ending in it (through NOTs; a refresh starts a new chain): 1 on data that
// are no CMuxes, 1 + the deeper data input's depth otherwise. Every CMux
// adds the same noise, so a CMux's noise is its chain start's plus depth
// times the CMux's, and the target's failures grow with depth. For a depth
// limit D, one pass in topological order (cmuxDepths) refreshes a CMux of
// depth D exactly when a CMux reads it (greedy: as late as possible, one
// refresh per D CMuxes of a chain) — a refresh is an identity bootstrap, a
// 1-input OpLUT of table 0b10, inserted after the CMux and read by every
// gate that read it (outputs keep the CMux). spacingLimit finds the largest
// D for which that circuit, with a refresh also before every other gate
// reading a CMux of depth >= 2, has every CMux and every refresh of depth
// >= 2 within its bound (one NodeFailureLog2 per probe, binary search over
// D: O(n log n) for the whole circuit, where refreshing one CMux per round
// took a round per CMux of a chain). A circuit whose probe with no depth
// limit is within bound is not spaced, so mappings that needed no refresh
// before need none now (divide64's 63-row chains). fixCMuxNoise then takes
// the smallest D' <= D whose spaced and settled circuit has no more
// refreshes than D's (binary search again): the same cost with the
// refreshes spread evenly, so every chain ends further from its bound.
//
// Settling (settleCMuxNoise), the rule for what the spacing leaves, with
// the target's failures recomputed each round until no offender of this
// kind is left; it acts on the first offenders of each chain (those whose
// CMux fanins are within bound; the ones after them may be fixed by the
// same action):
//
//   - a consumer (any node but OpSel/OpCMux, e.g. a LUT or an OpSel's
//     input) over its bound that reads a CMux: the noisiest CMux it reads
//     (through NOTs) is refreshed;
//   - a CMux over its bound, or a refresh over its bound: the noisiest
//     CMux among its data inputs is refreshed (the latest point of the
//     chain); if its data inputs are no CMuxes, the CMux is undone (an
//     OpMux again);
//   - an OpSel over its bound (its circuit bootstrap's input too noisy):
//     its input is refreshed if it is a CMux, else every CMux on the select
//     is undone.
//
// After the spacing every refresh settling adds reads a CMux of depth at
// most D, as a probe's did, so it is within bound and settling ends in a
// few rounds (one per CMux a consumer reads, plus undoes). Every CMux is
// refreshed or undone at most once, so settling ends anyway; the result
// has every node that reads a CMux, and every OpSel and OpCMux, within its
// bound. Offenders that read no CMux are the cover's own business
// (mergeMulti's rule: a native gate may already be over) and are left
// alone. Nothing after LUTMap folds a refresh (ForLUTs ends with it); it
// costs one bootstrap in coverCost like any LUT.

// refreshTable is the identity on one input: a refresh bootstrap.
const refreshTable = 0b10

// isRefresh reports whether n is a refresh of a CMux.
func isRefresh(c *ir.Circuit, n *ir.Node) bool {
	return n.Op == ir.OpLUT && len(n.In) == 1 && n.Table == refreshTable && c.Nodes[n.In[0]].Op == ir.OpCMux
}

// fixCMuxNoise refreshes or undoes CMuxes of c until every node that owes
// its failure to a CMux is within its bound (see above). It returns nil if
// settling takes more rounds than the circuit has CMuxes twice over (it
// cannot by the argument above; a guard against a target whose failures
// are not monotone in the noise).
func fixCMuxNoise(c *ir.Circuit, st SelectTarget) (*ir.Circuit, error) {
	fail, err := st.NodeFailureLog2(c)
	if err != nil {
		return nil, err
	}
	anyOver := false
	for i, f := range fail {
		if f > st.NodeFailureBound(c.Nodes[i].Op) {
			anyOver = true
			break
		}
	}
	if !anyOver {
		return c, nil
	}
	limit, err := spacingLimit(c, st)
	if err != nil || limit == 0 {
		if err != nil {
			return nil, err
		}
		return settleCMuxNoise(c, st)
	}
	// The smallest limit whose settled circuit costs no more than limit's
	// spreads the refreshes evenly (4000 CMuxes at limit 1312: 3
	// refreshes, one every 1000 CMuxes), lowering every chain's failure at
	// no cost; binary search, keeping only results as cheap.
	settled := func(limit int) (*ir.Circuit, int, error) {
		refresh := map[ir.NodeID]bool{}
		cmuxDepths(c, limit, false, refresh)
		d, err := applyCMuxFixes(c, refresh, nil)
		if err == nil {
			d, err = settleCMuxNoise(d, st)
		}
		if d == nil || err != nil {
			return nil, 0, err
		}
		n := 0
		for i := range d.Nodes {
			if nd := &d.Nodes[i]; isRefresh(d, nd) || nd.Op == ir.OpMux {
				n++ // an undone CMux (OpMux) costs a bootstrap more, like a refresh
			}
		}
		return d, n, nil
	}
	best, want, err := settled(limit)
	if err != nil || best == nil {
		return nil, err
	}
	for l, h := 0, limit; h-l > 1; {
		mid := l + (h-l)/2
		d, n, err := settled(mid)
		if err != nil {
			return nil, err
		}
		if d != nil && n <= want {
			h, best, want = mid, d, n
		} else {
			l = mid
		}
	}
	return best, nil
}

// cmuxDepths returns every CMux's depth in c (see above; 0 for other
// nodes). With limit > 0 it also refreshes (marks in refresh) each CMux of
// depth limit that a CMux reads, so that no depth exceeds limit; with
// consumers it marks as well every CMux of depth >= 2 that a gate other
// than a CMux reads (the probe's consumer refreshes).
func cmuxDepths(c *ir.Circuit, limit int, consumers bool, refresh map[ir.NodeID]bool) []int {
	depth := make([]int, len(c.Nodes))
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch {
		case n.Op == ir.OpCMux:
			d := 0
			for _, f := range n.In[1:] {
				x, _ := throughNots(c, f)
				if c.Nodes[x].Op != ir.OpCMux || refresh[x] {
					continue
				}
				if limit > 0 && depth[x] >= limit {
					refresh[x] = true
					continue
				}
				d = max(d, depth[x])
			}
			depth[i] = d + 1
		case consumers && n.Op != ir.OpNot:
			for _, f := range n.In {
				if x, _ := throughNots(c, f); c.Nodes[x].Op == ir.OpCMux && depth[x] >= 2 {
					refresh[x] = true
				}
			}
		}
	}
	return depth
}

// chainsWithin reports whether every CMux of depth >= 2 and every refresh
// of a CMux of depth >= 2 in c is within its bound: what a shorter chain
// can fix.
func chainsWithin(c *ir.Circuit, st SelectTarget) (bool, error) {
	fail, err := st.NodeFailureLog2(c)
	if err != nil {
		return false, err
	}
	depth := cmuxDepths(c, 0, false, nil)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if fail[i] <= st.NodeFailureBound(n.Op) {
			continue
		}
		if (n.Op == ir.OpCMux && depth[i] >= 2) || (isRefresh(c, n) && depth[n.In[0]] >= 2) {
			return false, nil
		}
	}
	return true, nil
}

// spacingLimit returns the largest depth limit in [1, the longest chain)
// whose probe is within bound (see above), or 0 if the probe without a
// limit is (no spacing needed).
func spacingLimit(c *ir.Circuit, st SelectTarget) (int, error) {
	maxDepth := 0
	for _, d := range cmuxDepths(c, 0, false, nil) {
		maxDepth = max(maxDepth, d)
	}
	if maxDepth < 2 {
		return 0, nil
	}
	probe := func(limit int) (bool, error) {
		refresh := map[ir.NodeID]bool{}
		cmuxDepths(c, limit, true, refresh)
		p, err := applyCMuxFixes(c, refresh, nil)
		if err != nil {
			return false, err
		}
		return chainsWithin(p, st)
	}
	if ok, err := probe(0); err != nil || ok {
		return 0, err
	}
	// 1 is within bound: every refresh then reads a CMux of depth 1.
	lo, hi := 1, maxDepth
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := probe(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// settleCMuxNoise is the settling step (see above).
func settleCMuxNoise(c *ir.Circuit, st SelectTarget) (*ir.Circuit, error) {
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
		refresh, undo := cmuxFixes(c, st, fail)
		if len(refresh) == 0 && len(undo) == 0 {
			return c, nil
		}
		if c, err = applyCMuxFixes(c, refresh, undo); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// cmuxFixes is one settling round: the CMuxes to refresh and to undo.
func cmuxFixes(c *ir.Circuit, st SelectTarget, fail []float64) (refresh, undo map[ir.NodeID]bool) {
	over := func(x ir.NodeID) bool { return fail[x] > st.NodeFailureBound(c.Nodes[x].Op) }
	refresh = map[ir.NodeID]bool{}
	undo = map[ir.NodeID]bool{}
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
	var sels map[ir.NodeID]bool // OpSels whose CMuxes are undone
	for i := range c.Nodes {
		id := ir.NodeID(i)
		nd := &c.Nodes[i]
		if nd.Op == ir.OpCMux && sels[nd.In[0]] {
			undo[id] = true
		}
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
				if sels == nil {
					sels = map[ir.NodeID]bool{}
				}
				sels[id] = true
			}
		default:
			if x, up := noisiest(nd.In); x >= 0 && !up {
				refresh[x] = true
			}
		}
	}
	return refresh, undo
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
