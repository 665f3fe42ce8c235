package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/runtime"
)

// TestFHEWCostName checks that an FHEW run counts and names bootstraps
// (BGV's name, multiplications, is checked in backend/bgv).
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
}
