package optimize

import (
	"slices"

	"github.com/hcc-fhe/hcc/ir"
)

// Shared-select CMuxes (ir.OpSel / ir.OpCMux, ir/sel.go; docs/fhew-cmux-map.md).
// A MUX costs two FHEW gate bootstraps, but many MUXes share their select
// (max/argmax: one comparison selects every data bit; restoring division:
// each row's borrow selects the whole remainder). A target with a CMux
// gadget turns the select into an RGSW ciphertext once (an OpSel, priced at
// SelectBootstraps bootstraps) and evaluates every MUX on it as a CMux,
// which costs no bootstrap. LUTMap then also maps rewritten inputs:
//
//   - MUX functions are found wherever they are: ir.OpMux nodes, and any
//     node whose function over a 3-leaf cut is s ? a : b up to negations of
//     a, b and the output (Bristol's b ⊕ (s ∧ (a ⊕ b)), (s∧a) ∨ (¬s∧b),
//     3-input LUTs; findMuxes). NOT is free, so the negations cost nothing,
//     and MUX(¬s, a, b) = MUX(s, b, a) puts ¬s in s's group.
//   - The MUXes on one select whose group is at least a threshold large
//     become CMux(Sel(s), a, b); one rewritten input per threshold: a group
//     pays off once its MUXes' bootstraps (two each, as native MUXes) exceed
//     the OpSel's price, and for sure once even one bootstrap each does
//     (MUX cones the cover would have merged into other LUTs).
//   - The cover treats OpSel and OpCMux as boundaries: their fanins are
//     signals and their outputs are cut leaves, never absorbed into a LUT
//     (mapper.boundaryCut).
//   - CMux outputs carry their data inputs' noise plus their own, so after
//     mapping fixCMuxNoise refreshes CMux chains (an identity bootstrap) or
//     undoes CMuxes until every node is within its bound
//     (lutmap_cmux_noise.go).
//
// The cheapest of all covers is kept, so the rewrite never costs more than
// the mapping without it.

// SelectTarget is implemented by targets that evaluate OpSel and OpCMux
// (FHEW sets with a CMux gadget).
type SelectTarget interface {
	// SelectBootstraps is the price of one OpSel in this target's
	// bootstraps (GateCoster units); OpCMux costs 0. 0 means the gadget is
	// unavailable: LUTMap then maps as without it.
	SelectBootstraps() int
	// NodeFailureLog2 is each node's predicted failure (log2, -Inf for
	// none) with its inputs' actual noise; it must cover OpSel (the
	// circuit bootstrap's failure from its input's noise) and OpCMux (its
	// output's, whose noise is its data inputs' plus the CMux's).
	NodeFailureLog2(c *ir.Circuit) ([]float64, error)
	// NodeFailureBound is the largest acceptable NodeFailureLog2 of a node of op.
	NodeFailureBound(op ir.Op) float64
}

// selectTarget returns target as a SelectTarget with the gadget available.
func selectTarget(target LUTTarget) (SelectTarget, bool) {
	st, ok := target.(SelectTarget)
	if !ok || st.SelectBootstraps() <= 0 {
		return nil, false
	}
	return st, true
}

// isBoundary reports the ops the LUT cover never absorbs.
func isBoundary(op ir.Op) bool { return op == ir.OpSel || op == ir.OpCMux }

// boundaryCut is the one cut of an OpSel or OpCMux node: the node itself
// on its own fanins, at its native cost.
func (m *mapper) boundaryCut(nd *ir.Node) cut {
	var c cut
	for _, f := range nd.In {
		if !slices.Contains(c.leaves[:c.n], f) {
			c.leaves[c.n] = f
			c.n++
		}
	}
	c.native, c.feasible = true, true
	c.cost = int8(m.nativeCost(nd.Op))
	m.score(&c, c.leaves[:c.n])
	return c
}

// lowerSelects returns c with every OpSel replaced by its input and every
// OpCMux by the OpMux it computes (c itself when it has neither).
func lowerSelects(c *ir.Circuit) (*ir.Circuit, error) {
	has := false
	for i := range c.Nodes {
		has = has || isBoundary(c.Nodes[i].Op)
	}
	if !has {
		return c, nil
	}
	return rebuild(c, func(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID {
		switch n.Op {
		case ir.OpSel:
			return in[0]
		case ir.OpCMux: // in[0] is the lowered OpSel: its input
			return b.Mux(in[0], in[1], in[2])
		}
		return emitSame(b, n, in)
	})
}

// cmuxVariants returns c rewritten with OpSel + OpCMux for each grouping
// threshold that selects a different set of groups (none if no select has
// enough MUXes). Compare-swap pairs left as MUXes are rewritten as well
// where the target uses them (lutmap_muxpair.go).
func cmuxVariants(c *ir.Circuit, st SelectTarget, target LUTTarget) ([]*ir.Circuit, error) {
	sb := st.SelectBootstraps()
	muxes := findMuxes(c)
	size := map[ir.NodeID]int{}
	for i := range muxes {
		if muxes[i].ok {
			size[muxes[i].s]++
		}
	}
	var out []*ir.Circuit
	prev := -1
	for _, t := range []int{sb/2 + 1, sb + 1} {
		chosen := map[ir.NodeID]bool{}
		for s, n := range size {
			if n >= t {
				chosen[s] = true
			}
		}
		if len(chosen) == 0 || len(chosen) == prev {
			continue // nothing to rewrite, or the same groups as before
		}
		prev = len(chosen)
		r, err := rewriteCMux(c, muxes, chosen)
		if err != nil {
			return nil, err
		}
		if muxPairsUsable(target) {
			if partner, n := findMuxPairs(r); n > 0 {
				if r, err = rewriteMuxPairs(r, partner); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// rewriteCMux replaces every MUX root whose select is chosen by
// CMux(Sel(s), a, b) and drops the logic only those roots used.
func rewriteCMux(c *ir.Circuit, muxes []muxCand, chosen map[ir.NodeID]bool) (*ir.Circuit, error) {
	b := ir.NewBuilder(c.Name)
	var in []ir.NodeID
	r, err := rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[i]
		if mc := &muxes[i]; mc.ok && chosen[mc.s] {
			a, f := m[mc.a], m[mc.b]
			if mc.na {
				a = b.Not(a)
			}
			if mc.nb {
				f = b.Not(f)
			}
			return b.CMux(b.Sel(m[mc.s]), a, f)
		}
		in = in[:0]
		for _, x := range n.In {
			in = append(in, m[x])
		}
		return emitSame(b, n, in)
	})
	if err != nil {
		return nil, err
	}
	return deadGateRemoval(r)
}
