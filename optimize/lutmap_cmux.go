package optimize

import (
	"math"
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
//   - The MUXes on one select whose group saves enough become
//     CMux(Sel(s), a, b); one rewritten input per threshold: a group pays
//     off once its MUXes' bootstraps (two each as native MUXes, one for a
//     root that keeps a gate or an XOR root, findMuxes) exceed the OpSel's
//     price (fractional with a SelectCoster), and for sure once they
//     exceed twice that (MUX cones the cover would have merged into other
//     LUTs save less). A third input also
//     takes the gate and XOR roots (at the higher threshold): they save
//     only where the cover would have bootstrapped them.
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

// SelectCoster is implemented by SelectTargets whose OpSel is not a whole
// number of bootstraps (fhew.LUTTarget: a Select measured at 3.09 gate
// bootstraps on STD128_T_CMUX, where SelectBootstraps is 4). LUTMap's
// objective then prices an OpSel at SelectCost: the cover's area, the
// groups' thresholds and the choice between covers. The counts reported
// (coverCost, the target's own ir.Cost) stay SelectBootstraps.
type SelectCoster interface {
	// SelectCost is the price of one OpSel in the target's bootstraps
	// (GateCoster units), unrounded. Used only where it is positive,
	// finite and at most SelectBootstraps (the count it refines).
	SelectCost() float64
}

// selectPrice is the mapper's price of one OpSel on target: SelectCost
// where the target has it (and it is usable), else SelectBootstraps; 0
// without the gadget.
func selectPrice(target LUTTarget) float64 {
	st, ok := selectTarget(target)
	if !ok {
		return 0
	}
	sb := float64(st.SelectBootstraps())
	if sc, ok := target.(SelectCoster); ok {
		if p := sc.SelectCost(); p > 0 && p <= sb { // also false for NaN
			return p
		}
	}
	return sb
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
	c.cost = int8(m.nativeCost(nd.Op)) // an OpSel's in whole bootstraps: its depth
	if nd.Op == ir.OpSel {
		c.sel, m.selArea = true, selectPrice(m.target)
	}
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

// cmuxVariants returns c rewritten with OpSel + OpCMux in up to four
// ways: the groups whose roots save more than the OpSel's price
// (selectPrice) in a plain cover of c (every kind of root, coverSavings),
// and the plain MUX functions grouped by size at three thresholds (above
// the price, above SelectBootstraps and above twice that + 1; the first
// two are one for a whole price). Compare-swap pairs left as
// MUXes are rewritten as well where the target uses them
// (lutmap_muxpair.go). A rewrite whose saving estimated on the plain cover
// (at the OpSel's selectPrice) is not positive, or below minSaving of that
// cover's cost in whole bootstraps, is not returned: mapping it
// costs compile time (two more mappings) for a change within the noise of
// the heuristic. plain is that plain cover emitted: mapLUTs(c, target, k,
// 0), which LUTMap would otherwise compute again.
func cmuxVariants(c *ir.Circuit, target LUTTarget, k int) (out []*ir.Circuit, plain *ir.Circuit, err error) {
	// A group pays off once its weight (whole bootstraps) exceeds the
	// OpSel's price: above is the smallest such weight. The plain MUX
	// groups are also taken at the rounded price's thresholds (the
	// rewrites before the price was fractional; the same as above's for a
	// whole price, then skipped as repeats): a larger group saves more
	// per OpSel, and the cheapest of all covers is kept (udivide64 at the
	// 2^-40 LUT bound: 4467 bootstraps, 61 SEL, at ≥ 5 against 4473, 63
	// SEL, at ≥ 4).
	price := selectPrice(target)
	above := int(math.Floor(price)) + 1
	whole := int(math.Ceil(price)) + 1
	cs, err := coverSavings(c, target, k)
	if err != nil {
		return nil, nil, err
	}
	if plain, err = cs.m.emit(); err != nil {
		return nil, nil, err
	}
	// In whole bootstraps, as when the price was: a saving is kept when
	// positive and at least floor (for whole savings what "at least one
	// and at least ⌊1 %⌋" was); a fractional price saves fractions.
	floor := math.Floor(minSaving * coverPrice(target)(plain))
	type rewrite struct {
		in    *ir.Circuit
		roots []ir.NodeID
	}
	var done []rewrite // the roots each input rewrote
	add := func(in *ir.Circuit, muxes []muxCand, weight func(mc *muxCand) int, min int) error {
		saving := map[ir.NodeID]int{} // per select: the bootstraps its CMuxes save
		for i := range muxes {
			if muxes[i].ok {
				saving[muxes[i].s] += weight(&muxes[i])
			}
		}
		chosen := map[ir.NodeID]bool{}
		for s, n := range saving {
			if n >= min {
				chosen[s] = true
			}
		}
		var roots []ir.NodeID
		est := -price * float64(len(chosen))
		for i := range muxes {
			if muxes[i].ok && chosen[muxes[i].s] {
				roots = append(roots, ir.NodeID(i))
				if in == cs.base {
					est += float64(cs.weight(i, &muxes[i]))
				}
			}
		}
		if len(roots) == 0 || (in == cs.base && (est <= 0 || est < floor)) {
			return nil
		}
		for _, d := range done {
			if d.in == in && slices.Equal(d.roots, roots) {
				return nil // the same rewrite as before
			}
		}
		done = append(done, rewrite{in, roots})
		r, err := rewriteCMux(in, muxes, chosen)
		if err != nil {
			return err
		}
		if muxPairsUsable(target) {
			if partner, n := findMuxPairs(r); n > 0 {
				if r, err = rewriteMuxPairs(r, partner); err != nil {
					return err
				}
			}
		}
		out = append(out, r)
		return nil
	}
	muxes := chooseMuxes(muxCandidates(cs.base, target, muxGates|muxXors|muxConsts), cs.weight)
	if err := add(cs.base, muxes, func(mc *muxCand) int { return cs.weight(int(mc.root), mc) }, above); err != nil {
		return nil, nil, err
	}
	lit := findMuxes(c, target, 0)
	for _, min := range []int{above, whole, 2 * whole} {
		if err := add(c, lit, (*muxCand).saving, min); err != nil {
			return nil, nil, err
		}
	}
	return out, plain, nil
}

// maxCMuxVariants is the most rewrites cmuxVariants returns.
const maxCMuxVariants = 4

// minSaving is the smallest estimated saving, relative to the plain
// cover's cost, for which cmuxVariants returns a rewrite.
const minSaving = 0.01

// savings is a plain cover of base (c with wide PARITY and LUT nodes
// split as mapLUTs splits them) and the weight of a MUX candidate in it.
type savings struct {
	base *ir.Circuit
	m    *mapper
	used []int
}

// coverSavings maps c plainly (no parity cuts, as mapLUTs with parK = 0).
func coverSavings(c *ir.Circuit, target LUTTarget, k int) (*savings, error) {
	base, err := splitWideParity(c, 0)
	if err != nil {
		return nil, err
	}
	if base, err = expandLUTs(base, target, k); err != nil {
		return nil, err
	}
	m := &mapper{c: base, target: target, k: max(k, 2)}
	m.solve()
	return &savings{base: base, m: m, used: m.cover()}, nil
}

// weight is what rewriting candidate mc of root i saves in the cover: the
// root's cut cost if the root is a cover node (else 0: the cover absorbed
// it into a larger LUT), less the gate a gate root keeps, less one for
// each select or data node the cover does not compute (it would have to).
func (sv *savings) weight(i int, mc *muxCand) int {
	if sv.used[i] == 0 || sv.m.best[i] < 0 {
		return 0
	}
	s := int(sv.m.cuts[i][sv.m.best[i]].cost)
	for _, x := range []ir.NodeID{mc.s, mc.a, mc.b, mc.a2, mc.b2} {
		if x < 0 {
			continue
		}
		if y, _ := throughNots(sv.base, x); sv.base.Nodes[y].Op.IsGate() && sv.used[y] == 0 {
			s--
		}
	}
	if mc.a2 >= 0 || mc.b2 >= 0 {
		s--
	}
	return s
}

// rewriteCMux replaces every MUX root whose select is chosen by
// CMux(Sel(s), a, b) and drops the logic only those roots used.
func rewriteCMux(c *ir.Circuit, muxes []muxCand, chosen map[ir.NodeID]bool) (*ir.Circuit, error) {
	b := ir.NewBuilder(c.Name)
	var in []ir.NodeID
	r, err := rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[i]
		if mc := &muxes[i]; mc.ok && chosen[mc.s] {
			data := func(x, x2 ir.NodeID, neg bool, t uint8, cst int8) ir.NodeID {
				if cst != 0 {
					return b.Const(cst == 2)
				}
				if x2 >= 0 {
					return emitTable2(b, uint64(t), m[x], m[x2])
				}
				if neg {
					return b.Not(m[x])
				}
				return m[x]
			}
			return b.CMux(b.Sel(m[mc.s]), data(mc.a, mc.a2, mc.na, mc.at, mc.ca), data(mc.b, mc.b2, mc.nb, mc.bt, mc.cb))
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
