package hcc

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/optimize"
)

// TestWideOptionsFromSet: MapWide gets each wide-table set's own figures,
// not optimize's fallbacks: cbs.Params.MaxTerms(-50) (capped at
// wideMaxTermsCap), the ring degree and the measured cbs.Params.Cost
// (STD128_CBS's for the insecure sets). A compiled program's plan is
// MapWide's with exactly those options, AutoParams prices it with them,
// and the two 128-bit sets, whose circuit bootstraps cost differently,
// are priced apart.
func TestWideOptionsFromSet(t *testing.T) {
	src, err := LoadCircuit(HDL(testWideMux, ""), StyleSize)
	if err != nil {
		t.Fatal(err)
	}
	refS, err := wideSchemeByName(wideCostReference, false)
	if err != nil {
		t.Fatal(err)
	}
	refCost := refS.(*wideScheme).p.Cost()
	opts := map[string]optimize.WideOptions{}
	for _, name := range append(wideNames(false), wideNames(true)...) {
		s, err := wideSchemeByName(name, true)
		if err != nil {
			t.Fatal(err)
		}
		ws := s.(*wideScheme)
		c := ws.p.Cost()
		if ws.insecure() {
			c = refCost
		}
		want := optimize.WideOptions{MaxTerms: min(ws.p.MaxTerms(-50), wideMaxTermsCap), PackSlots: ws.p.N(),
			CBSCost: c.CBS, TableCost: c.Table, OutCost: max(c.Output, minWideOutCost)}
		got, err := ws.options()
		if err != nil || got != want {
			t.Fatalf("%s: options %+v (%v), want %+v", name, got, err, want)
		}
		opts[name] = got
		p := mustCompile(t, HDL(testWideMux, ""), Target{Params: name, Insecure: true})
		plan, err := ws.plan(p.Circuit())
		if err != nil {
			t.Fatal(err)
		}
		direct, err := optimize.MapWide(p.Circuit(), want)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(plan, direct) {
			t.Errorf("%s: the program's plan is not MapWide's with the set's options", name)
		}
		if ws.insecure() {
			continue
		}
		_, _, cost, _, err := wideAutoCost(src, name)
		if err != nil {
			t.Fatal(err)
		}
		if pc, err := want.PlanCost(direct); err != nil || cost != pc {
			t.Errorf("%s: AutoParams prices the plan at %v, want %v at the set's prices (%v)", name, cost, pc, err)
		}
	}
	a, b := opts["STD128_CBS"], opts["STD128_CBS_595"]
	if a.CBSCost == b.CBSCost {
		t.Errorf("STD128_CBS and STD128_CBS_595 price a circuit bootstrap alike (%v): the test wants the sets' own prices to differ", a.CBSCost)
	}
}

// TestAutoWideDominated: AutoParams does not map STD128_CBS_595 once
// STD128_CBS (same limits and ring, a cheaper circuit bootstrap) meets
// the target: its candidate is skipped, estimated as STD128_CBS's plan at
// its own prices, above STD128_CBS's cost. wideDominates needs equal
// limits, no price higher and one lower.
func TestAutoWideDominated(t *testing.T) {
	p, err := Compile(HDL(autoSrc, "cmp16"), Target{Params: AutoParams})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ParamsCandidate{}
	for _, c := range p.Choice().Candidates {
		byName[c.Params] = c
	}
	a, b := byName["STD128_CBS"], byName["STD128_CBS_595"]
	t.Logf("%s\n%s", a, b)
	if !a.Wide || a.Skipped || !a.OK || !b.Wide || !b.Skipped || b.OK || !strings.Contains(b.Line, "estimated from STD128_CBS") {
		t.Fatalf("want STD128_CBS mapped within the target and STD128_CBS_595 skipped: %v; %v", a, b)
	}
	sa, err := wideSchemeByName("STD128_CBS", false)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := wideSchemeByName("STD128_CBS_595", false)
	if err != nil {
		t.Fatal(err)
	}
	src, err := LoadCircuit(HDL(autoSrc, "cmp16"), StyleSize)
	if err != nil {
		t.Fatal(err)
	}
	d, _, _, _, err := wideAutoCost(src, "STD128_CBS")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sa.(*wideScheme).plan(d)
	if err != nil {
		t.Fatal(err)
	}
	ob, err := sb.(*wideScheme).options()
	if err != nil {
		t.Fatal(err)
	}
	if want, err := ob.PlanCost(plan); err != nil || b.Cost != want || b.Cost <= a.Cost || b.Bootstraps != a.Bootstraps {
		t.Errorf("STD128_CBS_595 estimated at %v (%d CBS), want STD128_CBS's plan at its prices, %v (%v), above %v", b.Cost, b.Bootstraps, want, err, a.Cost)
	}
	base := optimize.WideOptions{MaxTerms: 64, PackSlots: 2048, CBSCost: 3, TableCost: 0.06, OutCost: 0.001}
	for _, tc := range []struct {
		change func(*optimize.WideOptions)
		want   bool
	}{
		{func(o *optimize.WideOptions) {}, false},
		{func(o *optimize.WideOptions) { o.CBSCost = 3.5 }, true},
		{func(o *optimize.WideOptions) { o.CBSCost, o.OutCost = 3.5, 0.0005 }, false},
		{func(o *optimize.WideOptions) { o.TableCost = 0.1 }, true},
		{func(o *optimize.WideOptions) { o.CBSCost, o.MaxTerms = 3.5, 32 }, false},
		{func(o *optimize.WideOptions) { o.CBSCost, o.PackSlots = 3.5, 1024 }, false},
		{func(o *optimize.WideOptions) { o.CBSCost = 2.5 }, false},
	} {
		o := base
		tc.change(&o)
		if got := wideDominates(base, o); got != tc.want {
			t.Errorf("wideDominates(%+v, %+v) = %v, want %v", base, o, got, tc.want)
		}
	}
}
