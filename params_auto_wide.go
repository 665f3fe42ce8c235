package hcc

import (
	"fmt"
	"math"
	"slices"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
)

// AutoParams also weighs the 128-bit wide-table sets (circuit
// bootstrapping with vertical packing, engine_fhew_wide.go): each is the
// source after the generic cleanup plus a MapWide plan, priced in the same
// NAND-equivalents (wideAutoCost). They run beside the LUT sets' choice.

// wideCandidate is one wide-table set's result.
type wideCandidate struct {
	name    string
	d       *ir.Circuit
	s       *wideScheme
	plan    *ir.WidePlan
	cost    float64
	failure float64
	err     error
	// from names the set whose plan estimated this one's cost when it was
	// not mapped (wideDominates); "" for a set mapped or sharing a plan.
	from string
}

// fhewAutoWide prices every secure wide-table set for c. Sets with the
// same MapWide options get the same plan (MapWide is deterministic and
// the compiled circuit is the set-independent cleanup), so only the first
// of them is mapped; the others take its plan and cost with their own
// predicted failure. A set that an earlier one within the failure target
// dominates (wideDominates: STD128_CBS_595 by STD128_CBS, whose circuit
// bootstrap is cheaper) is not mapped: its cost is estimated as the
// earlier plan at its own prices (a mapping of AES takes seconds).
func fhewAutoWide(c *ir.Circuit) []wideCandidate {
	var out []wideCandidate
	var opts []optimize.WideOptions // the options of out[i] (zero on an error)
	for _, name := range wideNames(false) {
		r := wideCandidate{name: name, failure: math.NaN()}
		s, err := wideSchemeByName(name, false)
		if err != nil {
			r.err = err
			out, opts = append(out, r), append(opts, optimize.WideOptions{})
			continue
		}
		ws := s.(*wideScheme)
		opt, err := ws.options()
		if err != nil {
			r.err = err
			out, opts = append(out, r), append(opts, optimize.WideOptions{})
			continue
		}
		mapped := func(j int) bool { return out[j].err == nil && out[j].from == "" }
		if j := slices.IndexFunc(opts, func(o optimize.WideOptions) bool { return o == opt }); j >= 0 && mapped(j) {
			r.d, r.s, r.plan, r.cost = out[j].d, ws, out[j].plan, out[j].cost
			r.failure = ws.planFailureLog2(r.plan)
			out, opts = append(out, r), append(opts, opt)
			continue
		}
		if j := slices.IndexFunc(opts, func(o optimize.WideOptions) bool { return wideDominates(o, opt) }); j >= 0 && mapped(j) && out[j].failure <= MaxFailureLog2 {
			r.plan, r.from = out[j].plan, out[j].name
			r.cost, r.err = opt.PlanCost(r.plan)
			out, opts = append(out, r), append(opts, opt)
			continue
		}
		r.d, _, r.cost, r.failure, r.err = wideAutoCost(c, name)
		if r.err == nil {
			r.s = ws
			r.plan, r.err = ws.plan(r.d) // cached by wideAutoCost
		}
		out, opts = append(out, r), append(opts, opt)
	}
	return out
}

// wideDominates reports whether every plan costs at most as much under a
// as under b and a allows every plan b allows (the same limits and ring),
// with some price lower: b's cheapest plan can then not beat a's (up to
// MapWide being a heuristic, as for optimize.LUTCandidate.Covers).
func wideDominates(a, b optimize.WideOptions) bool {
	la, lb := a, b
	la.CBSCost, la.TableCost, la.OutCost = 0, 0, 0
	lb.CBSCost, lb.TableCost, lb.OutCost = 0, 0, 0
	return la == lb && a != b && a.CBSCost <= b.CBSCost && a.TableCost <= b.TableCost && a.OutCost <= b.OutCost
}

// paramsCandidate is r's line in a ParamsChoice.
func (r wideCandidate) paramsCandidate() ParamsCandidate {
	c := ParamsCandidate{Params: r.name, Cost: r.cost, FailureLog2: r.failure, LUTFailureLog2: math.NaN(), Wide: true}
	if r.err != nil {
		c.Line = fmt.Sprintf("%s: no wide plan (%v)", r.name, r.err)
		return c
	}
	st := r.plan.Stats()
	c.Bootstraps = st.DistinctIn
	if r.from != "" {
		c.Skipped = true
		c.Line = fmt.Sprintf("%s: not mapped, at least %d circuit bootstraps, %d wide tables = %.0f NAND-equivalents (estimated from %s, whose prices are no higher)",
			r.name, st.DistinctIn, st.Tables, r.cost, r.from)
		return c
	}
	c.OK = r.failure <= MaxFailureLog2
	fail := fmt.Sprintf("predicted failure 2^%.1f per run", r.failure)
	if math.IsInf(r.failure, -1) {
		fail = "nothing can fail"
	}
	c.Line = fmt.Sprintf("%s: %d circuit bootstraps, %d wide tables = %.0f NAND-equivalents, %s (wide tables)",
		r.name, st.DistinctIn, st.Tables, r.cost, fail)
	if !c.OK {
		c.Line += ", over the target"
	}
	return c
}
