package hcc

import (
	"math"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
)

// TestAutoPricedSelect: AutoParams compares a CMux set by the price its
// mapper minimised, an OpSel at the measured SelectCost (3.09), while the
// candidate's Bootstraps and the named program's counts keep an OpSel at
// its whole SelectBootstraps (4). On cmp16 (one comparison selects the
// 16 bits of the maximum) STD128_T_CMUX maps with SELs at the first bound,
// so its candidate is the named program: the same count, and the cost
// lower by (4 - 3.09) × BootstrapCost per SEL.
func TestAutoPricedSelect(t *testing.T) {
	const set = "STD128_T_CMUX"
	p, err := Compile(HDL(autoSrc, "cmp16"), Target{Params: AutoParams})
	if err != nil {
		t.Fatal(err)
	}
	var cand *ParamsCandidate
	for i, c := range p.Choice().Candidates {
		t.Logf("%s", c)
		if c.Params == set {
			cand = &p.Choice().Candidates[i]
		}
	}
	if cand == nil || cand.Skipped || cand.LUTFailureLog2 != -40 {
		t.Fatalf("%s: %v, want a mapping at the first bound", set, cand)
	}
	named, err := Compile(HDL(autoSrc, "cmp16"), Target{Params: set})
	if err != nil {
		t.Fatal(err)
	}
	sels := named.Circuit().Stats().Count[ir.OpSel]
	fp, err := fhew.ParamsByName(set, false)
	if err != nil {
		t.Fatal(err)
	}
	tg := fhew.NewLUTTarget(fp, -40)
	if sels == 0 || tg.SelectCost() >= float64(tg.SelectBootstraps()) {
		t.Fatalf("%d SEL, SelectCost %.2f, SelectBootstraps %d: the test needs SELs at a fractional price", sels, tg.SelectCost(), tg.SelectBootstraps())
	}
	if got, want := cand.Bootstraps, named.Stats().Costly; got != want {
		t.Errorf("candidate counts %d bootstraps, the named program %d", got, want)
	}
	priced := float64(cand.Bootstraps) - float64(sels)*(float64(tg.SelectBootstraps())-tg.SelectCost())
	if want := priced * fp.BootstrapCost(); math.Abs(cand.Cost-want) > 1e-9 {
		t.Errorf("candidate cost %.4f, want the priced %.4f (counted %.4f)", cand.Cost, want, float64(cand.Bootstraps)*fp.BootstrapCost())
	}
	if !strings.Contains(cand.Line, "priced") {
		t.Errorf("report %q does not show the priced count", cand.Line)
	}
}
