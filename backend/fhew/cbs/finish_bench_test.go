package cbs

import (
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// BenchmarkFinishRGSW times the part of a circuit bootstrap after the
// blind rotation (finishRGSW: trace, scheme switch, the rows) at
// STD128_CBS, on random accumulators: "warm" back to back (the trace and
// scheme-switch keys, 1.9 MB, in the caches), "cold" each after reading
// 96 MiB (as after a blind rotation, whose 146 MB key evicts them), and
// "batch8" eight in a row after one eviction (CBSBatch's order), per call.
//
//	go test ./backend/fhew/cbs -run '^$' -bench FinishRGSW -benchtime 200x
func BenchmarkFinishRGSW(b *testing.B) {
	k := keys128(b)
	rng := mrand.New(mrand.NewPCG(81, 82))
	scs := make([]*Scratch, 8)
	for j := range scs {
		scs[j] = NewScratch(k.p)
		for _, acc := range []ring.Poly2{scs[j].accB, scs[j].accA} {
			for i, nt := range k.p.ring.NTT {
				for s := range acc[i] {
					acc[i][s] = rng.Uint32N(nt.Q)
				}
			}
		}
	}
	out := k.ev.NewRGSW()
	flushBuf := make([]uint64, 96<<20/8)
	var sink uint64
	flush := func() {
		for _, x := range flushBuf {
			sink += x
		}
	}
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			k.ev.finishRGSW(out, scs[0])
		}
	})
	b.Run("cold", func(b *testing.B) {
		var d time.Duration
		for i := 0; i < b.N; i++ {
			flush()
			t0 := time.Now()
			k.ev.finishRGSW(out, scs[0])
			d += time.Since(t0)
		}
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "ns/call")
	})
	b.Run("batch8", func(b *testing.B) {
		var d time.Duration
		for i := 0; i < b.N; i++ {
			flush()
			t0 := time.Now()
			for _, sc := range scs {
				k.ev.finishRGSW(out, sc)
			}
			d += time.Since(t0)
		}
		b.ReportMetric(float64(d.Nanoseconds())/float64(8*b.N), "ns/call")
	})
	if sink == 1 {
		b.Log(sink)
	}
}
