package fhew

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
	"github.com/hcc-fhe/hcc/runtime"
)

// max3Circuit is the maximum of three w-bit numbers by two compare-select
// stages: each stage's borrow selects w bits, the shape the CMux gadget is
// for.
func max3Circuit(t *testing.T, w int) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("max3")
	xs := [][]ir.NodeID{b.Input("x", w, false), b.Input("y", w, false), b.Input("z", w, false)}
	lt := func(a, c []ir.NodeID) ir.NodeID { // a < c, LSB first
		r := b.Const(false)
		for i := 0; i < w; i++ {
			r = b.Or(b.AndNY(c[i], a[i]), b.And(b.Xnor(a[i], c[i]), r))
		}
		return r
	}
	max := func(a, c []ir.NodeID) []ir.NodeID {
		s := lt(a, c)
		out := make([]ir.NodeID, w)
		for i := range out {
			out[i] = b.Mux(s, c[i], a[i])
		}
		return out
	}
	b.Output("m", w, false, max(max(xs[0], xs[1]), xs[2]))
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkMappedCMux maps max3 with optimize.LUTMap on k's set (a
// SelectTarget), requires SEL/CMUX nodes and fewer bootstraps than on the
// gate set without the gadget, and runs the mapped circuit through a
// Backend worker on random inputs against the original's plaintext value.
func checkMappedCMux(t *testing.T, k *testKit, plainSet ParamsLiteral, trials int) {
	c := max3Circuit(t, 6)
	tg := NewLUTTarget(k.p, DefaultLUTFailureLog2)
	mc, err := optimize.LUTMap(tg, ir.MaxLUTInputs).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[ir.Op]int{}
	for _, n := range mc.Nodes {
		ops[n.Op]++
	}
	pp, err := NewParams(plainSet)
	if err != nil {
		t.Fatal(err)
	}
	plain := NewLUTTarget(pp, DefaultLUTFailureLog2)
	pc, err := optimize.LUTMap(plain, ir.MaxLUTInputs).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	got, before := tg.CircuitBootstraps(mc), plain.CircuitBootstraps(pc)
	t.Logf("max3 (6 bits): %d SEL, %d CMUX; %d bootstraps (SEL at %d), %d on %s", ops[ir.OpSel], ops[ir.OpCMux], got, tg.SelectBootstraps(), before, plainSet.Name)
	if ops[ir.OpSel] == 0 || ops[ir.OpCMux] == 0 || got >= before {
		t.Errorf("the mapper did not use the gadget profitably: %v, %d vs %d bootstraps", ops, got, before)
	}
	w := NewBackend(k.ev).NewWorker()
	nin := c.NumInputBits()
	for trial := 0; trial < trials; trial++ {
		in := make([]int, nin)
		words := make([]uint64, nin)
		for j := range in {
			in[j] = rand.IntN(2)
			words[j] = uint64(in[j])
		}
		want := c.EvalBits(words)
		for j, g := range runWorker(t, k, w, mc, in) {
			if g != int(want[j]&1) {
				t.Errorf("trial %d, output bit %d: got %d, want %d", trial, j, g, want[j]&1)
			}
		}
	}
}

// TestMappedCMux: the mapper's SEL/CMUX output runs correctly on the
// CMux toys.
func TestMappedCMux(t *testing.T) {
	for _, lit := range cmuxToys {
		t.Run(lit.Name, func(t *testing.T) { checkMappedCMux(t, kitFor(t, lit), ToySigned, 6) })
	}
}

// TestMappedCMuxRuntime runs the mapped max3 with runtime.Run on two
// threads (workers share Selectors; the runtime recycles ciphertexts)
// against the plaintext evaluator.
func TestMappedCMuxRuntime(t *testing.T) {
	k := kitFor(t, ToySignedCMux)
	c := max3Circuit(t, 6)
	mc, err := optimize.LUTMap(NewLUTTarget(k.p, DefaultLUTFailureLog2), ir.MaxLUTInputs).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	be := NewBackend(k.ev)
	for trial := 0; trial < 4; trial++ {
		bits := make([]bool, c.NumInputBits())
		words := make([]uint64, len(bits))
		for j := range bits {
			bits[j] = rand.IntN(2) == 1
			if bits[j] {
				words[j] = 1
			}
		}
		out, _, err := runtime.Run(context.Background(), mc, be, k.enc.EncryptBits(bits), runtime.Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := k.sk.DecryptBits(out)
		if err != nil {
			t.Fatal(err)
		}
		want := c.EvalBits(words)
		for j, g := range got {
			if g != (want[j]&1 == 1) {
				t.Errorf("trial %d, output bit %d: got %v, want %d", trial, j, g, want[j]&1)
			}
		}
	}
}
