package optimize

import (
	"golang.org/x/sync/errgroup"

	"github.com/hcc-fhe/hcc/ir"
)

// lutMapRun is LUTMap's pass on c with cuts of k leaves and parity cuts
// of parK: every input variant (c, its compare-swap rewrite, its CMux
// rewrites) mapped plain and linearised, concurrently, grouped into
// multi-output bootstraps, CMux noise fixed, and the cheapest cover kept.
func lutMapRun(c *ir.Circuit, target LUTTarget, k, parK int) (*ir.Circuit, error) {
	// OpSel/OpCMux in the input (a mapped circuit mapped again):
	// MUXes again, which the CMux rewrite below may re-find.
	c, err := lowerSelects(c)
	if err != nil {
		return nil, err
	}
	// The inputs mapped: c, and c with its compare-swap MUX pairs
	// rewritten (lutmap_muxpair.go) when it has any and the target
	// can use them.
	inputs := []*ir.Circuit{c}
	if muxPairsUsable(target) {
		if partner, n := findMuxPairs(c); n > 0 {
			r, err := rewriteMuxPairs(c, partner)
			if err != nil {
				return nil, err
			}
			inputs = append(inputs, r)
		}
	}
	// Linearised XOR cones are structural: where XORs and ANDs
	// interleave (carry chains: mult64 9487 against 5984) the plain
	// mapping's LUTs win, so both are mapped, concurrently, and
	// the cheapest cover is kept. Each is grouped into multi-output
	// bootstraps (lutmap_multi.go) before the costs are compared.
	pars := []int{0}
	if parK >= 3 {
		pars = append(pars, parK)
	}
	// Slot i·len(pars)+j is input i mapped with pars[j]; the CMux
	// variants (lutmap_cmux.go: c with its shared-select MUXes as
	// OpSel + OpCMux) follow the inputs.
	st, cmux := selectTarget(target)
	cmuxFrom := len(inputs)
	out := make([]*ir.Circuit, (len(inputs)+maxCMuxVariants)*len(pars))
	var g errgroup.Group
	start := func(slot int, in *ir.Circuit, pk int, pre *ir.Circuit) {
		g.Go(func() (err error) {
			d := pre
			if d == nil {
				d, err = mapLUTs(in, target, k, pk)
			}
			if err == nil {
				d, err = mergeMultiFor(d, target)
			}
			if err == nil && slot >= cmuxFrom*len(pars) {
				// CMux noise: refresh or undo until every node is
				// within its bound; nil if that fails (the
				// variant then drops out).
				d, err = fixCMuxNoise(d, st)
			}
			out[slot] = d
			return err
		})
	}
	for i, in := range inputs {
		for j, pk := range pars {
			if !(cmux && i == 0 && pk == 0) { // that one comes from cmuxVariants
				start(i*len(pars)+j, in, pk, nil)
			}
		}
	}
	if cmux { // while the inputs above map
		vs, plain0, err := cmuxVariants(c, target, k)
		if err != nil {
			g.Wait()
			return nil, err
		}
		start(0, c, 0, plain0)
		for v, in := range vs {
			for j, pk := range pars {
				start((cmuxFrom+v)*len(pars)+j, in, pk, nil)
			}
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// The objective: an OpSel at its fractional price (coverPrice).
	cost := coverPrice(target)
	best := out[len(pars)-1] // ties: the linearised mapping of c, as before
	for _, d := range out {
		if d != nil && cost(d) < cost(best) {
			best = d
		}
	}
	return best, nil
}
