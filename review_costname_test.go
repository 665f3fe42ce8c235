package hcc

import (
	"context"
	"testing"
)

// TestEvalCostNameMatchesEval checks that Program.EvalCostName names what
// Eval counts and reports through Progress (the CLI's progress line uses
// it): on a wide-table set that is circuit bootstraps, not the non-linear
// gates Program.Stats counts.
func TestEvalCostNameMatchesEval(t *testing.T) {
	for _, tc := range []struct {
		target Target
		want   string
	}{
		{toyWide, "circuit bootstraps"},
		{Target{Engine: "fhew", Params: "ToyGINX", Insecure: true}, "bootstraps"},
	} {
		p := mustCompile(t, HDL(testWideMux, ""), tc.target)
		ck, sk := keysFor(t, p)
		cts, err := ck.Encrypt(p, randomInputs(p, 1, 7)...)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		_, st, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: 1, Progress: func(done, total int) {
			calls++
			if total != 0 && done > total {
				t.Errorf("%s: progress %d/%d", tc.target.Params, done, total)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.EvalCostName(); got != tc.want || got != st.CostName || calls == 0 || st.Costly == 0 {
			t.Errorf("%s: EvalCostName %q, Eval's Stats.CostName %q, want %q (%d progress calls, %d costly)", tc.target.Params, got, st.CostName, tc.want, calls, st.Costly)
		}
	}
}
