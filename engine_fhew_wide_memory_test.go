package hcc

import (
	"context"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
	"github.com/hcc-fhe/hcc/backend/ring"
)

// TestMemWideSizes checks the sizes the wide estimate computes from the
// set against the objects cbs makes on ToyCBS: the evaluation key's
// SizeBytes, one RGSW's and one Scratch's polynomials (the Scratch bound
// must not be below them).
func TestMemWideSizes(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	_, sk := keysFor(t, p)
	ws := sk.ek.(*wideServer)
	if got, want := wideEvalKeyBytes(ws.s.p), int64(ws.ek.SizeBytes()); got != want {
		t.Errorf("evaluation key %d bytes, SizeBytes %d", got, want)
	}
	ev, err := cbs.NewEvaluator(ws.ek)
	if err != nil {
		t.Fatal(err)
	}
	polyBytes := func(ps []ring.Poly2) (n int64) {
		for _, q := range ps {
			n += 4 * int64(len(q[0])+len(q[1]))
		}
		return n
	}
	g := ev.NewRGSW()
	if got, want := wideRGSWBytes(ws.s.p), polyBytes(g.B)+polyBytes(g.A); got != want {
		t.Errorf("RGSW %d bytes, NewRGSW %d", got, want)
	}
	if got, want := widePolyBytes(ws.s.p), polyBytes([]ring.Poly2{ws.s.p.Ring().NewPoly()}); got != want {
		t.Errorf("polynomial %d bytes, NewPoly %d", got, want)
	}
	// The 128-bit set's key, from its parameters alone (no keygen): the
	// figure docs/library.md quotes, about 257 MB plus the 64 MB table.
	std, err := cbs.NewParams(cbs.STD128_CBS)
	if err != nil {
		t.Fatal(err)
	}
	if k, m := wideEvalKeyBytes(std), wideMonoBytes(std); k < 200<<20 || k > 300<<20 || m != 64<<20 {
		t.Errorf("STD128_CBS key %d bytes, monomial table %d", k, m)
	}
}

// TestMemWidePeakRGSW: the simulated RGSW cache peak lies between the
// widest table's distinct inputs and all the plan's distinct inputs.
func TestMemWidePeakRGSW(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	plan, err := p.scheme.(*wideScheme).plan(p.circuit)
	if err != nil {
		t.Fatal(err)
	}
	peak, widest := widePeakRGSW(plan), 0
	for i := range plan.Tables {
		widest = max(widest, len(plan.Tables[i].In))
	}
	if st := plan.Stats(); peak < widest || peak > st.DistinctIn || peak == 0 {
		t.Errorf("peak %d RGSWs; widest table %d inputs, %d distinct", peak, widest, st.DistinctIn)
	}
}

// TestMemWideEstimate measures the heap of a batch on ToyCBS (keys,
// encryption of every instance, Eval with ReleaseInputs as hcc eval runs
// it, sampled every millisecond) and checks that the estimate, made
// before, is at least 1/1.25 of the measured peak (the collector's timing
// varies; 1.01 measured) and at most 3 times it; and that
// the estimate grows with the batch, by the waiting ciphertexts.
func TestMemWideEstimate(t *testing.T) {
	p := mustCompile(t, HDL("circuit add(a: u16, b: u16) -> (s: u16) { s = a + b; }\n", ""), toyWide)
	const n = 120
	est, ok, err := p.EstimateMemory(MemoryOptions{Threads: 2, Client: true, Packs: n})
	if err != nil || !ok || !strings.HasPrefix(est.Text, "about ") || !strings.Contains(est.Advice, "fewer instances") {
		t.Fatalf("estimate %+v, %v, %v", est, ok, err)
	}
	one, _, _ := p.EstimateMemory(MemoryOptions{Threads: 2, Client: true, Packs: 1})
	bit := int64(cbs.WideBitSize(p.scheme.(*wideScheme).p))
	if d, want := est.Total-one.Total, int64(wideGCFactor()*float64((n-1)*32*bit)); d < want*99/100 || d > want*101/100 {
		t.Errorf("%d packs cost %d bytes more than one, want about %d", n, d, want)
	}
	enc, _, _ := p.EstimateMemory(MemoryOptions{EncryptOnly: true, Packs: n})
	if enc.Total < wideFileCopies*n*32*bit || strings.Contains(enc.Text, "keys") {
		t.Errorf("encrypt-only estimate %d, run %d", enc.Total, est.Total)
	}

	peakAbove := sampleHeapPeak()
	ck, sk := keysFor(t, p)
	cts, err := ck.Encrypt(p, randomInputs(p, n, 7)...)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: 2, ReleaseInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	goruntime.KeepAlive(out)
	measured := peakAbove()
	t.Logf("estimate %s; measured heap peak %d bytes above the start (%.2f of the estimate)", est.Text, measured, float64(measured)/float64(est.Total))
	if 4*measured > 5*est.Total || 3*measured < est.Total {
		t.Errorf("measured heap peak %d bytes, estimate %d: not within [1/3, 1.25] of it", measured, est.Total)
	}
}

// sampleHeapPeak starts sampling the heap every millisecond after a GC;
// the returned function stops it and gives the peak above the start.
func sampleHeapPeak() func() int64 {
	var ms goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m goruntime.MemStats
		for {
			goruntime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return int64(peak - min(base, peak))
	}
}
