package cbs

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/ir"
)

// NANDForBench builds fhew's NAND at the named fhew set (STD128_LOWFAIL_T,
// the default and the unit of every cost, or another) and returns one gate
// evaluation as a closure. It is set by nand_bench_test.go (package
// cbs_test): package fhew imports cbs, so this package's own tests cannot
// import fhew.
var NANDForBench func(set string) (func(), error)

var (
	nandMu sync.Mutex
	nands  = map[string]func(){}
)

// nandFor returns STD128_LOWFAIL_T's NAND (built once).
func nandFor(b *testing.B) func() { return nandOf(b, "STD128_LOWFAIL_T") }

// nandOf returns the named fhew set's NAND (built once per set).
func nandOf(b *testing.B, set string) func() {
	nandMu.Lock()
	defer nandMu.Unlock()
	if f, ok := nands[set]; ok {
		return f
	}
	f, err := NANDForBench(set)
	if err != nil {
		b.Fatal(err)
	}
	nands[set] = f
	return f
}

// keys128 generates (once) a STD128_CBS key set.
func keys128(b testing.TB) *testKeys { return keysFor(b, STD128_CBS) }

// costRow is one parameter set's share of BenchmarkCBSCost.
type costRow struct {
	k           *testKeys
	sc          *Scratch
	rg          []*RGSW
	outs        []*WideBit
	in          *WideBit
	cbs, vp, ks time.Duration
}

// BenchmarkCBSCost measures, interleaved round by round with fhew's NAND at
// STD128_LOWFAIL_T (so load changes hit every row alike), one circuit
// bootstrap, one 8-input 8-output table by vertical packing (the AES
// S-box, one packed polynomial) and the LWE key switch alone (mod switch,
// key switch, rounding) on each 128-bit set, in ms and in NAND-times. One
// op is one round. It also projects AES-128 (1600 CBS + 200 tables) in
// NAND-equivalents (today's mapping: 15418).
//
//	go test ./backend/fhew/cbs -run '^$' -bench CBSCost -benchtime 10x
func BenchmarkCBSCost(b *testing.B) {
	nk := nandFor(b)
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	lits := []ParamsLiteral{STD128_CBS, STD128_CBS_595}
	rows := make([]*costRow, len(lits))
	for i, lit := range lits {
		k := keysFor(b, lit)
		r := &costRow{k: k, sc: NewScratch(k.p), in: NewWideBit(k.p)}
		r.rg, r.outs = newBuffers(k, 8, 8)
		if err := k.enc.Encrypt(true, r.in); err != nil {
			b.Fatal(err)
		}
		for j := range r.rg {
			if err := k.ev.CBS(r.in, r.rg[j], r.sc); err != nil {
				b.Fatal(err)
			}
		}
		rows[i] = r
	}
	var nand time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			t0 := time.Now()
			nk()
			t1 := time.Now()
			if err := r.k.ev.CBS(r.in, r.rg[i%8], r.sc); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			if err := r.k.ev.EvalTable(r.rg, tabs, r.outs, r.sc); err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			r.k.ev.toSmallLWE(r.in, r.sc)
			t4 := time.Now()
			nand += t1.Sub(t0)
			r.cbs += t2.Sub(t1)
			r.vp += t3.Sub(t2)
			r.ks += t4.Sub(t3)
		}
	}
	b.StopTimer()
	n := float64(b.N * len(rows))
	b.ReportMetric(nand.Seconds()/n*1e3, "NAND-ms")
	nandOp := nand.Seconds() / n
	for i, r := range rows {
		name := lits[i].Name
		per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
		b.ReportMetric(per(r.cbs)*1e3, name+"-CBS-ms")
		b.ReportMetric(per(r.cbs)/nandOp, name+"-CBS/NAND")
		b.ReportMetric(per(r.vp)/nandOp, name+"-VP8x8/NAND")
		b.ReportMetric(per(r.ks)/nandOp, name+"-KS/NAND")
		b.ReportMetric((1600*per(r.cbs)+200*per(r.vp))/nandOp, name+"-AES-NAND-eq")
	}
}

// BenchmarkGateOps measures gate mode's operations at STD128_CBS_T with
// N_g = 1024 (fhew's STD128_T), interleaved round by round with fhew's
// NAND at STD128_LOWFAIL_T: CBSFromLWE (the select), Lift (one data bit),
// CMux and ExtractConst, in ms and NAND-times; T-NAND is the NAND of
// fhew's STD128_T (the gate set STD128_T_CMUX builds on), also per round,
// and CBSFromLWE/T-NAND the select's price in its bootstraps. One op is
// one round.
//
//	go test ./backend/fhew/cbs -run '^$' -bench GateOps -benchtime 20x
func BenchmarkGateOps(b *testing.B) {
	nk := nandFor(b)
	nt := nandOf(b, "STD128_T")
	k := gateKeysFor(b, STD128_CBS_T, 1024, 15)
	sc := NewScratch(k.p)
	sel := k.ev.NewRGSW()
	x, y := k.ev.NewRLWE(), k.ev.NewRLWE()
	w := NewWideBit(k.p)
	sb, sa, _ := encryptLWE(k.sk, k.smp, 1, 15, 16)
	gb, ga, _ := k.encryptGate(1, 8)
	if err := k.ev.Lift(gb, ga, 15, y, sc); err != nil {
		b.Fatal(err)
	}
	var nand, tnand, sel1, lift, cmux, ext time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tt := time.Now()
		nt()
		t0 := time.Now()
		nk()
		t1 := time.Now()
		if err := k.ev.CBSFromLWE(sb, sa, 15, sel, sc); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := k.ev.Lift(gb, ga, 15, x, sc); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		if err := k.ev.CMux(sel, x, y, y, sc); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		if err := k.ev.ExtractConst(y, w); err != nil {
			b.Fatal(err)
		}
		t5 := time.Now()
		tnand += t0.Sub(tt)
		nand += t1.Sub(t0)
		sel1 += t2.Sub(t1)
		lift += t3.Sub(t2)
		cmux += t4.Sub(t3)
		ext += t5.Sub(t4)
	}
	b.StopTimer()
	n := float64(b.N)
	nandOp := nand.Seconds() / n
	b.ReportMetric(nandOp*1e3, "NAND-ms")
	b.ReportMetric(tnand.Seconds()/n*1e3, "T-NAND-ms")
	b.ReportMetric(sel1.Seconds()/tnand.Seconds(), "CBSFromLWE/T-NAND")
	for _, m := range []struct {
		name string
		d    time.Duration
	}{{"CBSFromLWE", sel1}, {"Lift", lift}, {"CMux", cmux}, {"Extract", ext}} {
		b.ReportMetric(m.d.Seconds()/n*1e3, m.name+"-ms")
		b.ReportMetric(m.d.Seconds()/n/nandOp, m.name+"/NAND")
	}
}

// BenchmarkCBSBatch measures CBSBatch at STD128_CBS for batches of 1, 2,
// 4 and 8, on one worker and on two (each with its own batch, as EvalPlan's
// workers), interleaved round by round with fhew's NAND at
// STD128_LOWFAIL_T: the wall time per circuit bootstrap in ms and in
// NAND-times (on two workers, wall / (2·k): what a level of independent
// bootstraps costs per CBS). One op is one round.
//
//	go test ./backend/fhew/cbs -run '^$' -bench CBSBatch -benchtime 10x
func BenchmarkCBSBatch(b *testing.B) {
	nk := nandFor(b)
	k := keys128(b)
	sizes := []int{1, 2, 4, 8}
	type worker struct {
		bs   *BatchScratch
		ins  []*WideBit
		outs []*RGSW
	}
	newWorker := func() *worker {
		bs, err := NewBatchScratch(k.p, sizes[len(sizes)-1])
		if err != nil {
			b.Fatal(err)
		}
		ins, _ := randomWideBits(b, k, mrand.New(mrand.NewPCG(41, 42)), bs.Size())
		outs := make([]*RGSW, bs.Size())
		for j := range outs {
			outs[j] = k.ev.NewRGSW()
		}
		return &worker{bs: bs, ins: ins, outs: outs}
	}
	ws := []*worker{newWorker(), newWorker()}
	run := func(w *worker, n int) {
		if err := k.ev.CBSBatch(w.ins[:n], w.outs[:n], w.bs); err != nil {
			b.Error(err)
		}
	}
	run(ws[0], 1)
	one := make([]time.Duration, len(sizes))
	two := make([]time.Duration, len(sizes))
	var nand time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		nk()
		nand += time.Since(t0)
		for s, n := range sizes {
			t0 := time.Now()
			run(ws[0], n)
			one[s] += time.Since(t0)
			t0 = time.Now()
			var wg sync.WaitGroup
			for _, w := range ws {
				wg.Go(func() { run(w, n) })
			}
			wg.Wait()
			two[s] += time.Since(t0)
		}
	}
	b.StopTimer()
	nandOp := nand.Seconds() / float64(b.N)
	b.ReportMetric(nandOp*1e3, "NAND-ms")
	for s, n := range sizes {
		per1 := one[s].Seconds() / float64(b.N*n)
		per2 := two[s].Seconds() / float64(b.N*2*n)
		b.ReportMetric(per1*1e3, fmt.Sprintf("k%d-1w-CBS-ms", n))
		b.ReportMetric(per1/nandOp, fmt.Sprintf("k%d-1w-CBS/NAND", n))
		b.ReportMetric(per2*1e3, fmt.Sprintf("k%d-2w-CBS-ms", n))
		b.ReportMetric(per2/nandOp, fmt.Sprintf("k%d-2w-CBS/NAND", n))
	}
}

// BenchmarkKeySwitchBatch times the LWE key switch at STD128_CBS (mod
// switch done beforehand) on 4 samples: one at a time and in batches of 2
// and 4 (keySwitchLWEBatch), interleaved, each after reading 96 MiB to
// evict the key from the caches (in a CBS the blind rotation's 146 MB key
// does that), in ms per sample.
//
//	go test ./backend/fhew/cbs -run '^$' -bench KeySwitchBatch -benchtime 20x
func BenchmarkKeySwitchBatch(b *testing.B) {
	k := keys128(b)
	ws, _ := randomWideBits(b, k, mrand.New(mrand.NewPCG(43, 44)), 4)
	bs, err := NewBatchScratch(k.p, len(ws))
	if err != nil {
		b.Fatal(err)
	}
	for j, w := range ws {
		k.ev.modSwitchKS(w, bs.scs[j])
	}
	flushBuf := make([]uint64, 96<<20/8)
	var sink uint64
	flush := func() {
		for _, x := range flushBuf {
			sink += x
		}
	}
	sizes := []int{1, 2, 4}
	ts := make([]time.Duration, len(sizes))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for s, n := range sizes {
			flush()
			t0 := time.Now()
			for lo := 0; lo < len(ws); lo += n {
				sink += keySwitchLWEBatch(k.p, k.ek, bs.scs[lo:lo+n], bs.ksOffs)
			}
			ts[s] += time.Since(t0)
		}
	}
	b.StopTimer()
	for s, n := range sizes {
		b.ReportMetric(ts[s].Seconds()/float64(b.N*len(ws))*1e3, fmt.Sprintf("k%d-ms/KS", n))
	}
	bs.scs[0].sink += sink
}

// aesShapedPlan returns a plan shaped like two AES rounds as MapWide maps
// them: levels of 16 S-box tables (8 inputs, 8 outputs), level 1 reading
// forms of 3 input bits, level 2 forms of 4 level-1 outputs (128 distinct
// forms, i.e. circuit bootstraps, per level).
func aesShapedPlan(levels int) *ir.WidePlan {
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	const width = 128
	p := &ir.WidePlan{Name: "aes-shaped", Inputs: []ir.Bus{{Name: "x", Width: width}}, NumInputs: width,
		Outputs: []ir.Bus{{Name: "y", Width: width}}}
	prev, terms := int32(0), 3
	for lv := 0; lv < levels; lv++ {
		for t := 0; t < width/8; t++ {
			wt := ir.WideTable{Out: tabs}
			for j := 0; j < 8; j++ {
				var f ir.LinearForm
				for u := 0; u < terms; u++ {
					f.Terms = append(f.Terms, prev+int32((8*t+j+37*u)%width))
				}
				slices.Sort(f.Terms)
				f.Terms = slices.Compact(f.Terms)
				wt.In = append(wt.In, f)
			}
			p.Tables = append(p.Tables, wt)
		}
		if lv == 0 {
			prev = width
		} else {
			prev += width
		}
		terms = 4
	}
	for j := int32(0); j < width; j++ {
		p.OutForms = append(p.OutForms, ir.LinearForm{Terms: []int32{prev + j}})
	}
	return p
}

// BenchmarkEvalPlanBatch runs an AES-shaped plan of two levels (256
// circuit bootstraps, 32 S-box tables; aesShapedPlan) at STD128_CBS on
// two threads with EvalOptions.Batch 1, 4 and 8, interleaved round by
// round with 20 of fhew's NANDs at STD128_LOWFAIL_T: the wall time per
// plan, per CBS, and its ratio to batch 1 (the speed-up of batching
// measured under the same load). One op is one round.
//
//	go test ./backend/fhew/cbs -run '^$' -bench EvalPlanBatch -benchtime 3x
func BenchmarkEvalPlanBatch(b *testing.B) {
	nk := nandFor(b)
	k := keys128(b)
	plan := aesShapedPlan(2)
	if err := plan.Verify(); err != nil {
		b.Fatal(err)
	}
	ncbs := plan.Stats().DistinctIn
	in, err := k.enc.EncryptBits(make([]bool, plan.NumInputs))
	if err != nil {
		b.Fatal(err)
	}
	sizes := []int{1, 4, 8}
	ts := make([]time.Duration, len(sizes))
	var nand time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for range 20 {
			nk()
		}
		nand += time.Since(t0) / 20
		for s, n := range sizes {
			t0 := time.Now()
			if _, err := k.ev.EvalPlan(context.Background(), plan, in, EvalOptions{Threads: 2, Batch: n}); err != nil {
				b.Fatal(err)
			}
			ts[s] += time.Since(t0)
		}
	}
	b.StopTimer()
	nandOp := nand.Seconds() / float64(b.N)
	b.ReportMetric(nandOp*1e3, "NAND-ms")
	for s, n := range sizes {
		per := ts[s].Seconds() / float64(b.N*ncbs)
		b.ReportMetric(per*1e3, fmt.Sprintf("k%d-ms/CBS", n))
		b.ReportMetric(per/nandOp, fmt.Sprintf("k%d-CBS/NAND", n))
		b.ReportMetric(ts[s].Seconds()/ts[0].Seconds(), fmt.Sprintf("k%d/k1", n))
	}
}
