package hcc

import (
	"context"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// TestMemFHEWKeyBytes checks fhewEvalKeyBytes against the in-memory size
// of real keys on every toy set (Signed, LMKCDEY, GINX, CMux).
func TestMemFHEWKeyBytes(t *testing.T) {
	cmux := 0
	for _, name := range fhew.InsecureNames() {
		p, err := fhew.ParamsByName(name, true)
		if err != nil {
			t.Fatal(err)
		}
		if p.HasCMux() {
			cmux++
		}
		sk, err := fhew.NewSecretKey(p)
		if err != nil {
			t.Fatal(err)
		}
		ek, err := fhew.GenEvaluationKey(sk)
		if err != nil {
			t.Fatal(err)
		}
		if _, total := ek.SizeBytes(); int64(total) != fhewEvalKeyBytes(p) {
			t.Errorf("%s: key of %d bytes, formula %d", name, total, fhewEvalKeyBytes(p))
		}
	}
	if cmux == 0 {
		t.Error("no toy set with the CMux gadget checked")
	}
}

// TestMemFHEWLiveWidth checks the live-width simulation on a chain (one
// value at a time plus the output) and on a fan-out (every value live).
func TestMemFHEWLiveWidth(t *testing.T) {
	for _, tc := range []struct {
		src  string
		lo   int
		hi   int
		sels bool
	}{
		{"circuit f(a: u8) -> (y: bit) { y = a[0] & a[1] & a[2] & a[3] & a[4] & a[5] & a[6] & a[7]; }\n", 1, 3, false},
		{"circuit f(a: u8, b: u8) -> (y: u8) { y = a ^ b; }\n", 8, 8, false},
	} {
		p := mustCompile(t, HDL(tc.src, ""), Target{Engine: "fhew", Params: "ToySigned", Insecure: true})
		w, _, _ := fhewLiveWidth(p.circuit)
		if w < tc.lo || w > tc.hi {
			t.Errorf("%q: live width %d, want [%d, %d]", tc.src, w, tc.lo, tc.hi)
		}
	}
}

// TestMemFHEWEstimate measures the heap of a batch on ToySignedCMux (keys,
// encryption of every instance, Eval with ReleaseInputs, sampled every
// millisecond) and checks that the estimate, made before, is within
// [1/1.5, 3] of the measured peak; that the batch's ciphertexts and the
// select forms are counted; and that encryption alone has no keys.
func TestMemFHEWEstimate(t *testing.T) {
	src := HDL("circuit f(a: u16, b: u16, c: bit) -> (s: u16) { s = c ? a : b; }\n", "")
	p := mustCompile(t, src, Target{Engine: "fhew", Params: "ToySignedCMux", Insecure: true})
	const n = 200
	est, ok, err := p.EstimateMemory(MemoryOptions{Threads: 2, Client: true, Packs: n})
	if err != nil || !ok || !strings.HasPrefix(est.Text, "about ") || !strings.Contains(est.Advice, "fewer instances") {
		t.Fatalf("estimate %+v, %v, %v", est, ok, err)
	}
	s := p.scheme.(*fhewScheme)
	one, _, _ := p.EstimateMemory(MemoryOptions{Threads: 2, Client: true, Packs: 1})
	if d, want := est.Total-one.Total, int64(fhewBatchClient*float64((n-1)*(33+16)*fhewCtBytes(s.p))); d < want {
		t.Errorf("%d instances cost %d bytes more than one, want at least %d", n, d, want)
	}
	if _, sels, _ := fhewLiveWidth(p.circuit); sels == 0 || !strings.Contains(est.Text, "select forms") {
		t.Errorf("%d SEL nodes; estimate %q", sels, est.Text)
	}
	enc, _, _ := p.EstimateMemory(MemoryOptions{EncryptOnly: true, Packs: n})
	if enc.Total < wideFileCopies*n*33*fhewCtBytes(s.p) || strings.Contains(enc.Text, "keys") {
		t.Errorf("encrypt-only estimate %d %q", enc.Total, enc.Text)
	}

	peakAbove := sampleHeapPeak()
	ck, sk, err := GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	cts, err := ck.Encrypt(p, randomInputs(p, n, 7)...)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: 2, ReleaseInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	goruntime.KeepAlive(out)
	goruntime.KeepAlive(sk)
	measured := peakAbove()
	t.Logf("estimate %s; measured heap peak %d bytes above the start (%.2f of the estimate)", est.Text, measured, float64(measured)/float64(est.Total))
	if 2*measured > 3*est.Total || 3*measured < est.Total {
		t.Errorf("measured heap peak %d bytes, estimate %d: not within [1/3, 1.5] of it", measured, est.Total)
	}
}

// countingEvaluator counts the ciphertexts the runtime allocates (its
// free list recycles them, so the count is its pool's peak).
type countingEvaluator struct {
	backend.Evaluator
	n *atomic.Int64
}

func (e countingEvaluator) NewWorker() backend.Worker {
	return countingWorker{e.Evaluator.NewWorker(), e.n}
}

type countingWorker struct {
	backend.Worker
	n *atomic.Int64
}

func (w countingWorker) NewCiphertext() backend.Ciphertext {
	w.n.Add(1)
	return w.Worker.NewCiphertext()
}

// TestMemFHEWPoolBound runs a replicated batch (as Eval runs one) through
// the runtime on ToySigned and checks that the ciphertexts it allocates
// stay within the estimate's pool, one instance's live width plus one per
// worker, for every batch size and thread count tried.
func TestMemFHEWPoolBound(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	ck, sk, err := GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	be, err := sk.ek.evaluator(p)
	if err != nil {
		t.Fatal(err)
	}
	width, _, _ := fhewLiveWidth(p.circuit)
	for _, n := range []int{1, 7} {
		for _, threads := range []int{1, 2, 4} {
			cts, err := ck.Encrypt(p, randomInputs(p, n, 3)...)
			if err != nil {
				t.Fatal(err)
			}
			var in []backend.Ciphertext
			for _, pk := range cts.packs {
				in = append(in, pk.cts...)
			}
			var count atomic.Int64
			c := p.circuit
			if n > 1 {
				c = replicate(c, n)
			}
			if _, _, err := hccrt.Run(context.Background(), c, countingEvaluator{be, &count}, in, hccrt.Options{Threads: threads, ReleaseInputs: true}); err != nil {
				t.Fatal(err)
			}
			// Outputs are never recycled: n-1 more instances' outputs sit
			// in the pool beside the last instance's live width.
			bound := int64(width+threads) + int64(n-1)*int64(p.circuit.NumOutputBits())
			got := count.Load()
			t.Logf("%d instances, %d threads: %d ciphertexts allocated, bound %d", n, threads, got, bound)
			if got > bound || got == 0 {
				t.Errorf("%d instances, %d threads: %d ciphertexts allocated, bound %d (live width %d)", n, threads, got, bound, width)
			}
		}
	}
}
