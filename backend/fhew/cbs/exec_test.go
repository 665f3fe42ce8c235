package cbs

import (
	"context"
	"errors"
	mrand "math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// randomPlan draws a valid plan: tables of 1..maxK inputs reading random
// forms (1-4 terms, random constants) of earlier signals, forms shared
// between tables now and then (to exercise the RGSW cache), 1-3 outputs.
func randomPlan(rng *mrand.Rand, nIn, nTables, maxK int) *ir.WidePlan {
	p := &ir.WidePlan{Name: "rand", Inputs: []ir.Bus{{Name: "x", Width: nIn}}, NumInputs: nIn}
	signals := nIn
	var used []ir.LinearForm
	randForm := func(minTerms int) ir.LinearForm {
		if minTerms > 0 && len(used) > 0 && rng.IntN(4) == 0 {
			f := used[rng.IntN(len(used))]
			f.Const = rng.IntN(2) == 0
			return f
		}
		n := minTerms + rng.IntN(4)
		seen := map[int32]bool{}
		for range n {
			seen[int32(rng.IntN(signals))] = true
		}
		var f ir.LinearForm
		for s := range int32(signals) {
			if seen[s] {
				f.Terms = append(f.Terms, s)
			}
		}
		f.Const = rng.IntN(2) == 0
		return f
	}
	for range nTables {
		k := 1 + rng.IntN(maxK)
		var t ir.WideTable
		for range k {
			f := randForm(1)
			t.In = append(t.In, f)
			used = append(used, f)
		}
		for range 1 + rng.IntN(3) {
			tt := make([]uint64, ir.TableWords(k))
			for w := range tt {
				tt[w] = rng.Uint64()
			}
			if k < 6 {
				tt[0] &= 1<<(1<<k) - 1
			}
			t.Out = append(t.Out, tt)
		}
		signals += len(t.Out)
		p.Tables = append(p.Tables, t)
	}
	nOut := 1 + rng.IntN(8)
	p.Outputs = []ir.Bus{{Name: "y", Width: nOut}}
	for range nOut {
		p.OutForms = append(p.OutForms, randForm(0))
	}
	return p
}

// randomPlanInputs draws random input bits for plan and returns the
// plan's plaintext outputs on them and the bits encrypted under k.
func randomPlanInputs(t *testing.T, k *testKeys, plan *ir.WidePlan, rng *mrand.Rand) ([]bool, []*WideBit) {
	t.Helper()
	bits := make([]bool, plan.NumInputs)
	for i := range bits {
		bits[i] = rng.IntN(2) == 1
	}
	want, err := plan.Eval(bits)
	if err != nil {
		t.Fatal(err)
	}
	in, err := k.enc.EncryptBits(bits)
	if err != nil {
		t.Fatal(err)
	}
	return want, in
}

func TestEvalPlanRandom(t *testing.T) {
	k := keysFor(t, ToyCBS)
	rng := mrand.New(mrand.NewPCG(21, 22))
	ctx := context.Background()
	for it := 0; it < 20; it++ {
		plan := randomPlan(rng, 1+rng.IntN(10), 1+rng.IntN(6), 6)
		if err := plan.Verify(); err != nil {
			t.Fatalf("plan %d: %v", it, err)
		}
		want, in := randomPlanInputs(t, k, plan, rng)
		var busy atomic.Int64
		calls, last := 0, 0
		opt := EvalOptions{Threads: 1 + it%2, Busy: &busy, Progress: func(done, total int) {
			calls++
			if done != calls || total != plan.Stats().DistinctIn {
				t.Errorf("plan %d: progress (%d, %d) at call %d, want total %d", it, done, total, calls, plan.Stats().DistinctIn)
			}
			last = total
		}}
		out, err := k.ev.EvalPlan(ctx, plan, in, opt)
		if err != nil {
			t.Fatalf("plan %d: %v", it, err)
		}
		if calls != last || busy.Load() <= 0 {
			t.Fatalf("plan %d: %d progress calls of %d, busy %d ns", it, calls, last, busy.Load())
		}
		got, err := k.sk.DecryptBits(out)
		if err != nil {
			t.Fatal(err)
		}
		for o := range want {
			if got[o] != want[o] {
				t.Fatalf("plan %d (%v) output %d: encrypted %v, plaintext %v", it, plan.Stats(), o, got[o], want[o])
			}
		}
	}
}

// TestEvalPlanSbox runs a two-level plan: the S-box of x, then the S-box of
// (S(x) ⊕ x ⊕ 0x5a) (forms of 2 terms and constants), on random bytes.
func TestEvalPlanSbox(t *testing.T) {
	k := keysFor(t, ToyCBS)
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	plan := &ir.WidePlan{Name: "sbox2", Inputs: []ir.Bus{{Name: "x", Width: 8}}, NumInputs: 8,
		Outputs: []ir.Bus{{Name: "y", Width: 8}}}
	t1 := ir.WideTable{Out: tabs}
	t2 := ir.WideTable{Out: tabs}
	for j := int32(0); j < 8; j++ {
		t1.In = append(t1.In, ir.LinearForm{Terms: []int32{j}})
		t2.In = append(t2.In, ir.LinearForm{Terms: []int32{j, 8 + j}, Const: 0x5a>>uint(j)&1 == 1})
		plan.OutForms = append(plan.OutForms, ir.LinearForm{Terms: []int32{16 + j}})
	}
	plan.Tables = []ir.WideTable{t1, t2}
	rng := mrand.New(mrand.NewPCG(23, 24))
	for rep := 0; rep < 3; rep++ {
		x := rng.IntN(256)
		bits := make([]bool, 8)
		for j := range bits {
			bits[j] = x>>uint(j)&1 == 1
		}
		in, _ := k.enc.EncryptBits(bits)
		out, err := k.ev.EvalPlan(context.Background(), plan, in, EvalOptions{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := k.sk.DecryptBits(out)
		y := 0
		for j, b := range got {
			if b {
				y |= 1 << uint(j)
			}
		}
		if want := int(sb[int(sb[x])^x^0x5a]); y != want {
			t.Fatalf("x = %#02x: %#02x, want %#02x", x, y, want)
		}
	}
}

func TestEvalPlanErrors(t *testing.T) {
	k := keysFor(t, ToyCBS)
	rng := mrand.New(mrand.NewPCG(25, 26))
	plan := randomPlan(rng, 4, 2, 3)
	in, _ := k.enc.EncryptBits(make([]bool, 4))
	ctx := context.Background()
	if _, err := k.ev.EvalPlan(ctx, nil, in, EvalOptions{}); err == nil {
		t.Error("nil plan accepted")
	}
	if _, err := k.ev.EvalPlan(ctx, plan, in[:3], EvalOptions{}); err == nil {
		t.Error("too few inputs accepted")
	}
	bad := append([]*WideBit(nil), in...)
	bad[1] = &WideBit{A: make([]uint64, 7)}
	if _, err := k.ev.EvalPlan(ctx, plan, bad, EvalOptions{}); err == nil {
		t.Error("short wide bit accepted")
	}
	broken := *plan
	broken.NumInputs = 99
	if _, err := k.ev.EvalPlan(ctx, &broken, in, EvalOptions{}); !errors.Is(err, ir.ErrInvalidPlan) {
		t.Errorf("invalid plan: %v, want ErrInvalidPlan", err)
	}
	huge := &ir.WidePlan{Name: "huge", Inputs: []ir.Bus{{Name: "x", Width: 1}}, NumInputs: 1,
		Outputs: []ir.Bus{{Name: "y", Width: 1}}, OutForms: []ir.LinearForm{{Terms: []int32{0}}}}
	big := ir.WideTable{In: []ir.LinearForm{{Terms: []int32{0}}}, Out: make([][]uint64, 1<<22)}
	for o := range big.Out {
		big.Out[o] = []uint64{2}
	}
	huge.Tables = []ir.WideTable{big}
	if err := huge.Verify(); err != nil {
		t.Fatal(err)
	}
	if _, err := k.ev.EvalPlan(ctx, huge, in[:1], EvalOptions{}); err == nil {
		t.Error("plan with 2^22 table outputs (16 GiB of wide bits) accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := k.ev.EvalPlan(cctx, plan, in, EvalOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
