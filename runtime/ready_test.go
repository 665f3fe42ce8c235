package runtime

import (
	"context"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// wideChains builds width independent chains of length steps, emitted chain
// after chain, whose ends are folded into one accumulator as each chain is
// finished: program order needs a handful of live values, a breadth-first
// sweep one per chain.
func wideChains(t *testing.T, width, steps int) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("chains")
	b.SetHashing(false) // the chains are alike; keep them apart
	x := b.Input("x", 2, false)
	var acc ir.NodeID
	for w := 0; w < width; w++ {
		v := b.Xor(x[w%2], x[1-w%2])
		for s := 0; s < steps; s++ {
			v = b.And(b.Xor(v, x[s%2]), x[(s+w)%2])
		}
		if w == 0 {
			acc = v
		} else {
			acc = b.Xor(acc, v)
		}
	}
	b.Output("y", 1, false, []ir.NodeID{acc})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRunFollowsProgramOrder checks the ready queue's lowest-index-first
// pick: on one worker, 64 chains of 40 gates must not hold one live
// ciphertext per chain (a FIFO queue allocates 65).
func TestRunFollowsProgramOrder(t *testing.T) {
	c := wideChains(t, 64, 40)
	in := []uint64{0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210}
	for _, threads := range []int{1, 2} {
		be := &clearBackend{failAt: -1, nodes: c.Nodes}
		out, _, err := Run(context.Background(), c, be, encryptClear(in), Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := *out[0].(*uint64), c.EvalBits(in)[0]; got != want {
			t.Fatalf("threads %d: y = %#x, want %#x", threads, got, want)
		}
		// With one worker the order is deterministic. With two it depends on
		// timing: a worker stalled by the OS inside chain j lets the other
		// finish chains j+1, j+2, ... whose ends wait for j's to fold in, so
		// there the bound is only the breadth-first one.
		limit := int64(5)
		if threads > 1 {
			limit = 64 + int64(threads)
		}
		if n := be.allocated.Load(); n > limit {
			t.Errorf("threads %d: 64 chains allocated %d ciphertexts; in program order %d suffice", threads, n, limit)
		}
	}
}

func TestRunReleaseInputs(t *testing.T) {
	b := ir.NewBuilder("release")
	x := b.Input("x", 3, false)
	b.Output("y", 2, false, []ir.NodeID{b.And(x[0], x[1]), x[2]}) // x[2] is also an output
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	in := []uint64{0xff00, 0x0ff0, 0x1234}
	for _, release := range []bool{false, true} {
		cts := encryptClear(in)
		out, _, err := Run(context.Background(), c, &clearBackend{failAt: -1, nodes: c.Nodes}, cts, Options{Threads: 2, ReleaseInputs: release})
		if err != nil {
			t.Fatal(err)
		}
		if *out[0].(*uint64) != 0x0f00 || *out[1].(*uint64) != 0x1234 {
			t.Fatalf("release=%v: outputs %#x %#x", release, *out[0].(*uint64), *out[1].(*uint64))
		}
		dropped := cts[0] == nil && cts[1] == nil
		if dropped != release || cts[2] == nil {
			t.Fatalf("release=%v: inputs after the run %v", release, cts)
		}
	}
}
