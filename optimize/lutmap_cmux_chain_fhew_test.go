package optimize

import (
	"fmt"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// fhewChainLimit is the longest chain of CMuxes that the target's noise
// model allows a refresh after, the chain starting from a bootstrap's
// output (as every chain after a refresh does; fresh inputs are less
// noisy and allow a longer first chain: fromInput): one circuit of n CMuxes,
// each also read by a refresh of its own (which nothing reads), and one
// NodeFailureLog2 give every depth's refresh failure; L is the last depth
// before the first refresh over its bound.
func fhewChainLimit(t *testing.T, tg fhew.LUTTarget, n int, fromInput bool) int {
	t.Helper()
	b := ir.NewBuilder("probe")
	s := b.Input("s", 1, false)[0]
	a := b.Input("a", 1, false)[0]
	x := b.Input("b", 1, false)[0]
	sel := b.Sel(s)
	cur := b.LUT(refreshTable, a) // a bootstrap output
	if fromInput {
		cur = a
	}
	var refs []ir.NodeID
	for range n {
		cur = b.CMux(sel, cur, x)
		refs = append(refs, b.LUT(refreshTable, cur))
	}
	b.Output("r", len(refs), false, refs)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	fail, err := tg.NodeFailureLog2(c)
	if err != nil {
		t.Fatal(err)
	}
	for d, r := range refs {
		if fail[r] > tg.NodeFailureBound(ir.OpLUT) {
			return d
		}
	}
	t.Fatalf("no refresh over its bound in %d CMuxes", n)
	return 0
}

// TestCMuxChainFHEW: on STD128_T_CMUX's noise model (out var = max(var a,
// var b) + CMuxAddedVariance, a refresh failing by its input's variance),
// chains of 4000 and 12000 CMuxes then an AND get at most ceil(n/L) + 1
// refreshes, L the longest chain the model allows (1312 at 2^-40; a
// tightened bound, as ChooseLUTSet sets, allows less),
// and every node within its bound; equivalent. Before the spacing this
// took 2481 and 10481 refreshes (finding F7), 12000 in ~263 s.
func TestCMuxChainFHEW(t *testing.T) {
	p, err := fhew.NewParams(fhew.STD128_T_CMUX)
	if err != nil {
		t.Fatal(err)
	}
	for _, bound := range []float64{-40, -50} {
		checkCMuxChainFHEW(t, fhew.NewLUTTarget(p, bound), bound)
	}
}

// checkCMuxChainFHEW is TestCMuxChainFHEW at one LUT failure bound.
func checkCMuxChainFHEW(t *testing.T, tg fhew.LUTTarget, bound float64) {
	L, first := fhewChainLimit(t, tg, 4000, false), fhewChainLimit(t, tg, 4000, true)
	if L < 100 {
		t.Fatalf("2^%.0f: L = %d: the model allows only short chains?", bound, L)
	}
	for _, n := range []int{4000, 12000} {
		c := cmuxChainAnd(t, n)
		d, err := fixCMuxNoise(c, tg)
		if err != nil || d == nil {
			t.Fatalf("%d: fixCMuxNoise = %v, %v", n, d, err)
		}
		circuittest.Equivalent(t, c, d)
		fail, err := tg.NodeFailureLog2(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range fail {
			if f > tg.NodeFailureBound(d.Nodes[i].Op) {
				t.Fatalf("%d: node %d (%v) at failure 2^%.1f, over the bound", n, i, d.Nodes[i].Op, f)
			}
		}
		// Fewer refreshes than lower leave a chain longer than first.
		r, lower, upper := countRefreshes(d), (n+first-1)/first-1, (n+L-1)/L+1
		t.Logf("2^%.0f, %d CMuxes, L = %d (%d from inputs): %d refreshes (%d..%d), chains up to %d",
			bound, n, L, first, r, lower, upper, longestCMuxChain(d))
		if r > upper || r < lower {
			t.Errorf("2^%.0f, %d: %d refreshes, want %d..%d", bound, n, r, lower, upper)
		}
		if got := countOp(d, ir.OpCMux); got != n {
			t.Errorf("2^%.0f, %d: %d CMUX, want all %d", bound, n, got, n)
		}
	}
}

// BenchmarkCMuxChainLUTMap times LUTMap (ForLUTs' last pass, as hcc
// compile --params STD128_T_CMUX runs it) on chains of n CMuxes then an
// AND, F7's repro shape.
func BenchmarkCMuxChainLUTMap(b *testing.B) {
	p, err := fhew.NewParams(fhew.STD128_T_CMUX)
	if err != nil {
		b.Fatal(err)
	}
	tg := fhew.NewLUTTarget(p, fhew.DefaultLUTFailureLog2)
	for _, n := range []int{4000, 12000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := cmuxChainAnd(b, n)
			for b.Loop() {
				if _, err := ForLUTs(tg, 3).Run(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
