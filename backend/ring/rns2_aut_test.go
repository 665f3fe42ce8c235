package ring

import (
	"math/rand/v2"
	"testing"
)

// TestRNS2AutomorphismNTTPair checks AutomorphismNTTPair against two
// AutomorphismNTT calls per residue for every t = 2^k + 1 (the trace's)
// and t = 5, 2N - 1, at N = 2048 and N = 16.
func TestRNS2AutomorphismNTTPair(t *testing.T) {
	for _, N := range []int{16, 2048} {
		r := newTestRNS2(t, N, 27)
		rng := rand.New(rand.NewPCG(9, uint64(N)))
		rnd := func() Poly2 {
			p := r.NewPoly()
			for k := range p[0] {
				p[0][k], p[1][k] = rng.Uint32N(r.Q0), rng.Uint32N(r.Q1)
			}
			return p
		}
		x, y := rnd(), rnd()
		ox, oy, wx, wy := r.NewPoly(), r.NewPoly(), r.NewPoly(), r.NewPoly()
		ts := []uint64{5, uint64(2*N - 1)}
		for k := 1; 1<<k <= N; k++ {
			ts = append(ts, 1<<k+1)
		}
		for _, tt := range ts {
			idx := AutomorphismNTTIndex(N, tt)
			r.AutomorphismNTTPair(x, y, idx, ox, oy)
			for i := range 2 {
				AutomorphismNTT(x[i], idx, wx[i])
				AutomorphismNTT(y[i], idx, wy[i])
			}
			comparePoly(t, "AutomorphismNTTPair x", wx, ox)
			comparePoly(t, "AutomorphismNTTPair y", wy, oy)
		}
	}
	s := newRNSBench(t)
	idx := AutomorphismNTTIndex(s.r.N, 3)
	if n := testing.AllocsPerRun(20, func() { s.r.AutomorphismNTTPair(s.a, s.a, idx, s.tmp, s.outB) }); n != 0 {
		t.Errorf("AutomorphismNTTPair: %v allocations per run", n)
	}
}

// BenchmarkRNS2AutomorphismNTTPair times AutomorphismNTTPair against two
// RNS2.AutomorphismNTT calls (t = 3, N = 2048).
//
//	go test ./backend/ring -run '^$' -bench RNS2AutomorphismNTTPair -benchtime 10000x
func BenchmarkRNS2AutomorphismNTTPair(b *testing.B) {
	s := newRNSBench(b)
	idx := AutomorphismNTTIndex(s.r.N, 3)
	b.Run("pair", func(b *testing.B) {
		for b.Loop() {
			s.r.AutomorphismNTTPair(s.a, s.tmp, idx, s.outB, s.outA)
		}
	})
	b.Run("two", func(b *testing.B) {
		for b.Loop() {
			s.r.AutomorphismNTT(s.a, idx, s.outB)
			s.r.AutomorphismNTT(s.tmp, idx, s.outA)
		}
	})
}
