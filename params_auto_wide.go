package hcc

import (
	"fmt"
	"math"
	"slices"

	"github.com/hcc-fhe/hcc/ir"
)

// AutoParams also weighs the 128-bit wide-table sets (circuit
// bootstrapping with vertical packing, engine_fhew_wide.go): each is the
// source after the generic cleanup plus a MapWide plan, priced in the same
// NAND-equivalents (wideAutoCost). They run beside the LUT sets' choice.

// wideCandidate is one wide-table set's result.
type wideCandidate struct {
	name    string
	d       *ir.Circuit
	s       scheme
	plan    *ir.WidePlan
	cost    float64
	failure float64
	err     error
}

// fhewAutoWide prices every secure wide-table set for c. Sets with the
// same MapWide options get the same plan (MapWide is deterministic and
// the compiled circuit is the set-independent cleanup), so only the first
// of them is mapped; the others take its plan and cost with their own
// predicted failure.
func fhewAutoWide(c *ir.Circuit) []wideCandidate {
	var out []wideCandidate
	var opts []any // the options of out[i], or nil
	for _, name := range wideNames(false) {
		r := wideCandidate{name: name, failure: math.NaN()}
		s, err := wideSchemeByName(name, false)
		if err != nil {
			r.err = err
			out, opts = append(out, r), append(opts, nil)
			continue
		}
		ws := s.(*wideScheme)
		opt, err := ws.options()
		if err != nil {
			r.err = err
			out, opts = append(out, r), append(opts, nil)
			continue
		}
		if j := slices.IndexFunc(opts, func(o any) bool { return o == any(opt) }); j >= 0 && out[j].err == nil {
			r.d, r.s, r.plan, r.cost = out[j].d, s, out[j].plan, out[j].cost
			r.failure = ws.planFailureLog2(r.plan)
			out, opts = append(out, r), append(opts, opt)
			continue
		}
		r.d, r.s, r.cost, r.failure, r.err = wideAutoCost(c, name)
		if r.err == nil {
			r.plan, r.err = ws.plan(r.d) // cached by wideAutoCost
		}
		out, opts = append(out, r), append(opts, opt)
	}
	return out
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
