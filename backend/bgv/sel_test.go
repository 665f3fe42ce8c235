package bgv

import (
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// TestSelCMuxNodes: BGV evaluates ir.OpSel (FHEW's select form, ir/sel.go)
// as a copy and ir.OpCMux as a MUX on it, lane for lane equal to
// ir.EvalGate, and costs the CMux one multiplication like a MUX.
func TestSelCMuxNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for trial := 0; trial < 20; trial++ {
		s, a, b := rng.Uint64(), rng.Uint64(), rng.Uint64()
		var sel, got uint64
		if err := evalGate[*uint64](bitArith{map[uint64]*uint64{}}, &ir.Node{Op: ir.OpSel, In: []ir.NodeID{0}}, []*uint64{&s}, &sel); err != nil {
			t.Fatal(err)
		}
		if sel != s {
			t.Fatalf("SEL: got %x, want %x", sel, s)
		}
		n := &ir.Node{Op: ir.OpCMux, In: []ir.NodeID{3, 1, 2}}
		if err := evalGate[*uint64](bitArith{map[uint64]*uint64{}}, n, []*uint64{&sel, &a, &b}, &got); err != nil {
			t.Fatal(err)
		}
		if want := ir.EvalGate(ir.OpCMux, 0, []uint64{s, a, b}); got != want {
			t.Fatalf("CMUX: got %x, want %x", got, want)
		}
	}
	if MulCost(ir.OpCMux) != 1 || MulCost(ir.OpSel) != 0 {
		t.Fatalf("MulCost CMUX %d SEL %d, want 1, 0", MulCost(ir.OpCMux), MulCost(ir.OpSel))
	}
}
