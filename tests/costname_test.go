package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/runtime"
)

// TestFHEWCostName checks that an FHEW run counts and names bootstraps
// (BGV's name, multiplications, is checked in backend/bgv), as many as the
// circuit's statistics for the set (ir.Circuit.StatsFor) report.
func TestFHEWCostName(t *testing.T) {
	k := kitFor(t, "ToySigned")
	if got := k.be.Capabilities().OpCostName(); got != "bootstraps" {
		t.Fatalf("FHEW cost name %q", got)
	}
	b := ir.NewBuilder("mux")
	x := b.Input("x", 3, false)
	b.Output("y", 1, false, []ir.NodeID{b.Mux(x[0], x[1], x[2])})
	c, _ := b.Build()
	_, st, err := runtime.Run(context.Background(), c, k.be, k.enc.EncryptBits([]bool{true, false, true}), runtime.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := k.be.LUTTarget().CircuitBootstraps(c)
	if st.Costly != want || !strings.HasPrefix(st.String(), "2 bootstraps in ") || want != 2 {
		t.Errorf("stats %v (%d costly), want the target's %d bootstraps (MUX = 2)", st, st.Costly, want)
	}
	// The circuit's statistics count what the run counts.
	for _, cost := range []ir.Cost{k.be.LUTTarget().Cost(), k.be.Capabilities().NodeCost()} {
		if s := c.StatsFor(cost); s.Costly != st.Costly || s.CostName != st.CostName || s.CostDepth != 2 {
			t.Errorf("StatsFor: %d %s, depth %d; the run: %d %s", s.Costly, s.CostName, s.CostDepth, st.Costly, st.CostName)
		}
	}
}
