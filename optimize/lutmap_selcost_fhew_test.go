package optimize_test

import (
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
)

// fhew.LUTTarget prices an OpSel at its measured SelectCost.
var _ optimize.SelectCoster = fhew.LUTTarget{}

// wholeSelect is an fhew.LUTTarget whose SelectCost the mapper ignores
// (0: it falls back to SelectBootstraps), i.e. the integer price.
type wholeSelect struct{ fhew.LUTTarget }

func (wholeSelect) SelectCost() float64 { return 0 }

// TestSelectCostFHEW: on STD128_T_CMUX (a Select measured at 3.09 gate
// bootstraps, counted as 4) two MUXes on one select (4 bootstraps as
// MUXes) become one SEL and two CMuxes; at the rounded price they stay
// MUXes. Both mappings are equivalent to the input.
func TestSelectCostFHEW(t *testing.T) {
	p, err := fhew.NewParams(fhew.STD128_T_CMUX)
	if err != nil {
		t.Fatal(err)
	}
	tg := fhew.NewLUTTarget(p, -40)
	if tg.SelectBootstraps() != 4 || tg.SelectCost() >= 3.5 {
		t.Fatalf("STD128_T_CMUX: SelectBootstraps %d, SelectCost %.2f; the test wants 4 and about 3.09", tg.SelectBootstraps(), tg.SelectCost())
	}
	b := ir.NewBuilder("mux2")
	s := b.Input("s", 1, false)[0]
	x := b.Input("a", 2, false)
	y := b.Input("b", 2, false)
	b.Output("y", 2, false, []ir.NodeID{b.Mux(s, x[0], y[0]), b.Mux(s, x[1], y[1])})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		tg   optimize.LUTTarget
		name string
		sels int
	}{{tg, "SelectCost", 1}, {wholeSelect{tg}, "SelectBootstraps", 0}} {
		d, err := optimize.ForLUTs(x.tg, 6).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
		st := d.Stats()
		t.Logf("priced at %s: %d bootstraps counted, %d SEL, %d CMUX, %d MUX", x.name, tg.CircuitBootstraps(d), st.Count[ir.OpSel], st.Count[ir.OpCMux], st.Count[ir.OpMux])
		if st.Count[ir.OpSel] != x.sels || tg.CircuitBootstraps(d) != 4 {
			t.Errorf("priced at %s: %d SEL, %d bootstraps, want %d SEL, 4 bootstraps", x.name, st.Count[ir.OpSel], tg.CircuitBootstraps(d), x.sels)
		}
	}
}
