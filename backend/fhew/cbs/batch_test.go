package cbs

import (
	"context"
	"math"
	mrand "math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
)

// sameRGSW reports whether a and b hold the same residues in every row.
func sameRGSW(a, b *RGSW) bool {
	for j := range a.B {
		for c := range 2 {
			if !slices.Equal(a.B[j][c], b.B[j][c]) || !slices.Equal(a.A[j][c], b.A[j][c]) {
				return false
			}
		}
	}
	return true
}

// randomWideBits returns n wide bits of random plaintexts, each the XOR of
// 1-3 fresh encryptions (so the phases' errors differ in size), and their
// bits.
func randomWideBits(t testing.TB, k *testKeys, rng *mrand.Rand, n int) ([]*WideBit, []int) {
	t.Helper()
	ws := make([]*WideBit, n)
	bits := make([]int, n)
	f := NewWideBit(k.p)
	for i := range ws {
		ws[i] = NewWideBit(k.p)
		for range 1 + rng.IntN(3) {
			b := rng.IntN(2)
			bits[i] ^= b
			if err := k.enc.Encrypt(b == 1, f); err != nil {
				t.Fatal(err)
			}
			if err := XorInto(k.p, ws[i], f); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ws, bits
}

// TestCBSBatchMatchesCBS checks CBSBatch against CBS on each input in turn,
// bit for bit, for batches of 1, 2, 3 and 5 (one BatchScratch of 5 reused,
// so that state left by a larger batch must not leak into a smaller one),
// and a batch holding one input three times; the results also decrypt to
// the inputs' bits.
func TestCBSBatchMatchesCBS(t *testing.T) {
	k := keysFor(t, ToyCBS)
	rng := mrand.New(mrand.NewPCG(31, 32))
	bs, err := NewBatchScratch(k.p, 5)
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScratch(k.p)
	ref := k.ev.NewRGSW()
	ws, bits := randomWideBits(t, k, rng, 5)
	outs := make([]*RGSW, 5)
	for j := range outs {
		outs[j] = k.ev.NewRGSW()
	}
	type batch struct{ idx []int }
	batches := []batch{{[]int{0, 1, 2, 3, 4}}, {[]int{3}}, {[]int{4, 0}}, {[]int{1, 2, 0}}, {[]int{2, 2, 4, 2}}, {[]int{0, 1, 2, 3, 4}}}
	for bi, b := range batches {
		in := make([]*WideBit, len(b.idx))
		for j, x := range b.idx {
			in[j] = ws[x]
		}
		if err := k.ev.CBSBatch(in, outs[:len(in)], bs); err != nil {
			t.Fatal(err)
		}
		for j, x := range b.idx {
			if err := k.ev.CBS(ws[x], ref, sc); err != nil {
				t.Fatal(err)
			}
			if !sameRGSW(outs[j], ref) {
				t.Fatalf("batch %d (%v), bootstrap %d: differs from CBS alone", bi, b.idx, j)
			}
			if e := checkRGSW(t, k, outs[j], bits[x]); e > float64(k.p.q)/(1<<12) {
				t.Fatalf("batch %d, bootstrap %d (bit %d): row error 2^%.1f", bi, j, bits[x], math.Log2(e))
			}
		}
		// Fresh inputs for the next batches: the same scratch, new data.
		if bi == 2 {
			ws, bits = randomWideBits(t, k, rng, 5)
		}
	}
}

// TestBlindRotateBatchSkips checks the lockstep blind rotation against one
// blind rotation per accumulator when the accumulators skip different
// steps (a_i = 0 at different i: rare in real samples, but then one
// accumulator must not advance while the others do).
func TestBlindRotateBatchSkips(t *testing.T) {
	k := keysFor(t, ToyCBS)
	p := k.p
	n := p.lit.LWEDim
	rng := mrand.New(mrand.NewPCG(33, 34))
	const kb = 3
	scs := make([]*Scratch, kb)
	for j := range scs {
		scs[j] = NewScratch(p)
		for i := range scs[j].alpha[:n+1] {
			scs[j].alpha[i] = int32(rng.IntN(p.ringM))
			if rng.IntN(3) == j { // about a third of the steps skipped, per accumulator
				scs[j].alpha[i] = 0
			}
		}
	}
	scs[1].alpha[0] = 0
	scs[2].alpha[n-1] = 0
	ref := NewScratch(p)
	k.ev.blindRotateBatch(scs)
	for j, sc := range scs {
		copy(ref.alpha, sc.alpha)
		k.ev.blindRotate(ref)
		for c := range 2 {
			if !slices.Equal(sc.accB[c], ref.accB[c]) || !slices.Equal(sc.accA[c], ref.accA[c]) {
				t.Fatalf("accumulator %d (residue %d): lockstep blind rotation differs from one alone", j, c)
			}
		}
	}
}

func TestCBSBatchZeroAllocs(t *testing.T) {
	k := keysFor(t, ToyCBS)
	bs, err := NewBatchScratch(k.p, 3)
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := randomWideBits(t, k, mrand.New(mrand.NewPCG(35, 36)), 3)
	outs := []*RGSW{k.ev.NewRGSW(), k.ev.NewRGSW(), k.ev.NewRGSW()}
	if a := testing.AllocsPerRun(3, func() { _ = k.ev.CBSBatch(ws, outs, bs) }); a != 0 {
		t.Errorf("CBSBatch: %v allocs", a)
	}
}

func TestCBSBatchBadInputs(t *testing.T) {
	k := keysFor(t, ToyCBS)
	k3 := keysFor(t, ToyCBS3)
	for _, n := range []int{0, -1, MaxBatch + 1} {
		if _, err := NewBatchScratch(k.p, n); err == nil {
			t.Errorf("NewBatchScratch(%d) accepted", n)
		}
	}
	if _, err := NewBatchScratch(Params{}, 2); err == nil {
		t.Error("NewBatchScratch of a zero Params accepted")
	}
	bs, err := NewBatchScratch(k.p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if bs.Size() != 2 || bs.Scratch() == nil || k.ev.checkScratch(bs.Scratch()) != nil {
		t.Fatalf("BatchScratch: size %d, first scratch %v", bs.Size(), bs.Scratch())
	}
	bs3, err := NewBatchScratch(k3.p, 2)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWideBit(k.p)
	g, g2, g3 := k.ev.NewRGSW(), k.ev.NewRGSW(), k.ev.NewRGSW()
	gk := gateKeysFor(t, ToyCBS, 512, 14)
	gbs, err := NewBatchScratch(gk.p, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func() error{
		"nil scratch":       func() error { return k.ev.CBSBatch([]*WideBit{w}, []*RGSW{g}, nil) },
		"other set scratch": func() error { return k.ev.CBSBatch([]*WideBit{w}, []*RGSW{g}, bs3) },
		"more inputs":       func() error { return k.ev.CBSBatch([]*WideBit{w, w}, []*RGSW{g}, bs) },
		"more outputs":      func() error { return k.ev.CBSBatch([]*WideBit{w}, []*RGSW{g, g2}, bs) },
		"batch too large":   func() error { return k.ev.CBSBatch([]*WideBit{w, w, w}, []*RGSW{g, g2, g3}, bs) },
		"nil input":         func() error { return k.ev.CBSBatch([]*WideBit{w, nil}, []*RGSW{g, g2}, bs) },
		"short input":       func() error { return k.ev.CBSBatch([]*WideBit{{A: make([]uint64, 3)}}, []*RGSW{g}, bs) },
		"nil output":        func() error { return k.ev.CBSBatch([]*WideBit{w, w}, []*RGSW{g, nil}, bs) },
		"other set output":  func() error { return k.ev.CBSBatch([]*WideBit{w}, []*RGSW{k3.ev.NewRGSW()}, bs) },
		"gate-mode key": func() error {
			return gk.ev.CBSBatch([]*WideBit{NewWideBit(gk.p)}, []*RGSW{gk.ev.NewRGSW()}, gbs)
		},
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := k.ev.CBSBatch(nil, nil, bs); err != nil {
		t.Errorf("empty batch: %v", err)
	}
}

// TestEvalPlanBatch runs random plans with batches of 1-4 bootstraps on 1
// and 2 threads: every run gives the wide bits of batch 1 on one thread,
// bit for bit, which decrypt to the plan's plaintext evaluation; Progress
// still counts every bootstrap. Out-of-range batch sizes are refused.
func TestEvalPlanBatch(t *testing.T) {
	k := keysFor(t, ToyCBS)
	rng := mrand.New(mrand.NewPCG(37, 38))
	ctx := context.Background()
	for it := 0; it < 4; it++ {
		plan := randomPlan(rng, 4+rng.IntN(8), 3+rng.IntN(5), 5)
		if err := plan.Verify(); err != nil {
			t.Fatalf("plan %d: %v", it, err)
		}
		want, in := randomPlanInputs(t, k, plan, rng)
		base, err := k.ev.EvalPlan(ctx, plan, in, EvalOptions{Threads: 1, Batch: 1})
		if err != nil {
			t.Fatal(err)
		}
		got, err := k.sk.DecryptBits(base)
		if err != nil {
			t.Fatal(err)
		}
		for o := range want {
			if got[o] != want[o] {
				t.Fatalf("plan %d (%v) output %d: encrypted %v, plaintext %v", it, plan.Stats(), o, got[o], want[o])
			}
		}
		for batch := 0; batch <= 4; batch++ {
			for threads := 1; threads <= 2; threads++ {
				calls := 0
				opt := EvalOptions{Threads: threads, Batch: batch, Progress: func(done, total int) {
					calls++
					if done != calls {
						t.Errorf("plan %d batch %d: progress %d at call %d", it, batch, done, calls)
					}
				}}
				out, err := k.ev.EvalPlan(ctx, plan, in, opt)
				if err != nil {
					t.Fatalf("plan %d batch %d threads %d: %v", it, batch, threads, err)
				}
				if calls != plan.Stats().DistinctIn {
					t.Errorf("plan %d batch %d: %d progress calls, want %d", it, batch, calls, plan.Stats().DistinctIn)
				}
				for o := range out {
					if out[o].B != base[o].B || !slices.Equal(out[o].A, base[o].A) {
						t.Fatalf("plan %d batch %d threads %d: output %d differs from batch 1", it, batch, threads, o)
					}
				}
			}
		}
	}
	plan := randomPlan(rng, 3, 2, 3)
	in, _ := k.enc.EncryptBits(make([]bool, 3))
	for _, b := range []int{-1, MaxBatch + 1} {
		if _, err := k.ev.EvalPlan(ctx, plan, in, EvalOptions{Batch: b}); err == nil {
			t.Errorf("EvalOptions.Batch = %d accepted", b)
		}
	}
}

// TestParallelChunks checks that the chunks cover [0, n) exactly once, none
// larger than k, for a few thread counts.
func TestParallelChunks(t *testing.T) {
	for _, c := range []struct{ threads, k, n int }{{1, 1, 5}, {2, 4, 130}, {3, 4, 7}, {2, 3, 1}, {2, 5, 0}} {
		seen := make([]int, c.n)
		var mu sync.Mutex
		err := parallelChunks(context.Background(), c.threads, c.k, c.n, func(_, lo, hi int) error {
			mu.Lock()
			defer mu.Unlock()
			if hi-lo < 1 || hi-lo > c.k {
				t.Errorf("%+v: chunk [%d, %d)", c, lo, hi)
			}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("%+v: item %d run %d times", c, i, s)
			}
		}
	}
}

// TestCBSBatch128 checks CBSBatch against CBS at STD128_CBS (a batch of 3,
// one input twice), bit for bit, and the rows' decryption. Opt-in with
// HCC_CBS_128=1 (key generation and 6 bootstraps: a few seconds).
func TestCBSBatch128(t *testing.T) {
	if os.Getenv("HCC_CBS_128") != "1" {
		t.Skip("set HCC_CBS_128=1 to run the STD128_CBS batch check")
	}
	k := keys128(t)
	ws, bits := randomWideBits(t, k, mrand.New(mrand.NewPCG(39, 40)), 2)
	ws, bits = append(ws, ws[0]), append(bits, bits[0])
	bs, err := NewBatchScratch(k.p, 3)
	if err != nil {
		t.Fatal(err)
	}
	outs := []*RGSW{k.ev.NewRGSW(), k.ev.NewRGSW(), k.ev.NewRGSW()}
	if err := k.ev.CBSBatch(ws, outs, bs); err != nil {
		t.Fatal(err)
	}
	sc, ref := NewScratch(k.p), k.ev.NewRGSW()
	for j := range ws {
		if err := k.ev.CBS(ws[j], ref, sc); err != nil {
			t.Fatal(err)
		}
		if !sameRGSW(outs[j], ref) {
			t.Fatalf("bootstrap %d: batch differs from CBS alone", j)
		}
		if e := checkRGSW(t, k, outs[j], bits[j]); e > 8*math.Sqrt(k.p.Noise().RowB)*4 {
			t.Fatalf("bootstrap %d (bit %d): row error 2^%.1f", j, bits[j], math.Log2(e))
		}
	}
}

// TestEvalPlanAESShaped runs the benchmark's AES-shaped plan (two levels of
// 16 S-box tables, 256 bootstraps) on ToyCBS with batches of 3 on two
// threads, against the plaintext evaluation and, bit for bit, batch 1.
func TestEvalPlanAESShaped(t *testing.T) {
	k := keysFor(t, ToyCBS)
	plan := aesShapedPlan(2)
	if err := plan.Verify(); err != nil {
		t.Fatal(err)
	}
	if st := plan.Stats(); st.DistinctIn != 256 || st.Tables != 32 {
		t.Fatalf("plan stats %+v, want 256 distinct forms in 32 tables", st)
	}
	rng := mrand.New(mrand.NewPCG(45, 46))
	want, in := randomPlanInputs(t, k, plan, rng)
	ctx := context.Background()
	one, err := k.ev.EvalPlan(ctx, plan, in, EvalOptions{Threads: 1, Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	out, err := k.ev.EvalPlan(ctx, plan, in, EvalOptions{Threads: 2, Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.sk.DecryptBits(out)
	if err != nil {
		t.Fatal(err)
	}
	for o := range want {
		if got[o] != want[o] {
			t.Fatalf("output %d: encrypted %v, plaintext %v", o, got[o], want[o])
		}
		if out[o].B != one[o].B || !slices.Equal(out[o].A, one[o].A) {
			t.Fatalf("output %d: batch 3 on 2 threads differs from batch 1", o)
		}
	}
}
