package ring

import (
	"math/rand/v2"
	"testing"
)

// rnsBench is the production shape: N = 2048, two 27-bit primes, with a
// random coefficient-domain polynomial, a 4-digit decomposition
// (logB = 14, drop 0: 56 >= log Q + 1) and 8 digits of NTT-domain rows.
type rnsBench struct {
	r              *RNS2
	a, tmp         Poly2
	dec            []Poly2
	digits, rb, ra []Poly2
	outB, outA     Poly2
}

func newRNSBench(t testing.TB) *rnsBench {
	r := newTestRNS2(t, 2048, 27)
	rng := rand.New(rand.NewPCG(21, 22))
	rnd := func() Poly2 {
		p := r.NewPoly()
		for k := range p[0] {
			p[0][k], p[1][k] = rng.Uint32N(r.Q0), rng.Uint32N(r.Q1)
		}
		return p
	}
	b := &rnsBench{r: r, a: rnd(), tmp: r.NewPoly(), outB: r.NewPoly(), outA: r.NewPoly()}
	for range 4 {
		b.dec = append(b.dec, r.NewPoly())
	}
	for range 8 {
		b.digits, b.rb, b.ra = append(b.digits, rnd()), append(b.rb, rnd()), append(b.ra, rnd())
	}
	return b
}

func BenchmarkRNS2Forward(b *testing.B) {
	s := newRNSBench(b)
	for b.Loop() {
		s.r.Forward(s.a, s.tmp)
	}
}

// BenchmarkRNS2Forward4Q is BenchmarkRNS2Forward with outputs in [0, 4Q)
// (the blind rotation's digits).
func BenchmarkRNS2Forward4Q(b *testing.B) {
	s := newRNSBench(b)
	for b.Loop() {
		s.r.Forward4Q(s.a, s.tmp)
	}
}

func BenchmarkRNS2Inverse(b *testing.B) {
	s := newRNSBench(b)
	for b.Loop() {
		s.r.Inverse(s.a, s.tmp)
	}
}

// BenchmarkRNS2InverseUnscaled is BenchmarkRNS2Inverse without N^-1 (the
// blind rotation's inverse transforms).
func BenchmarkRNS2InverseUnscaled(b *testing.B) {
	s := newRNSBench(b)
	for b.Loop() {
		s.r.InverseUnscaled(s.a, s.tmp)
	}
}

func BenchmarkRNS2Decompose4(b *testing.B) {
	s := newRNSBench(b)
	for b.Loop() {
		s.r.Decompose(s.a, 14, 4, 0, s.dec)
	}
}

// BenchmarkRNS2DecomposeBR is the blind rotation's decomposition in the
// circuit bootstrap (backend/fhew/cbs: B = 2^17, 2 digits, drop 21).
func BenchmarkRNS2DecomposeBR(b *testing.B) {
	s := newRNSBench(b)
	for b.Loop() {
		s.r.Decompose(s.a, 17, 2, 21, s.dec[:2])
	}
}

func BenchmarkRNS2DotRows8(b *testing.B) {
	s := newRNSBench(b)
	for b.Loop() {
		s.r.DotRows(s.digits, s.rb, s.ra, s.outB, s.outA)
	}
}

// TestRNS2Allocs checks that the hot-loop operations allocate nothing.
func TestRNS2Allocs(t *testing.T) {
	s := newRNSBench(t)
	r := s.r
	idx := AutomorphismNTTIndex(r.N, 5)
	v := make([]int64, r.N)
	ops := map[string]func(){
		"Forward":           func() { r.Forward(s.a, s.tmp) },
		"Inverse":           func() { r.Inverse(s.a, s.tmp) },
		"Decompose":         func() { r.Decompose(s.a, 14, 4, 0, s.dec) },
		"Decompose drop":    func() { r.Decompose(s.a, 13, 4, 3, s.dec) },
		"DotRows":           func() { r.DotRows(s.digits, s.rb, s.ra, s.outB, s.outA) },
		"MulCoeffsAdd":      func() { r.MulCoeffsAdd(s.a, s.a, s.tmp) },
		"MulByMonomial":     func() { r.MulByMonomial(s.a, 77, s.tmp) },
		"AutomorphismNTT":   func() { r.AutomorphismNTT(s.a, idx, s.tmp) },
		"AutomorphismCoeff": func() { r.AutomorphismCoeff(s.a, 5, s.tmp) },
		"Centered":          func() { r.Centered(s.a, v) },
	}
	for name, f := range ops {
		if n := testing.AllocsPerRun(20, f); n != 0 {
			t.Errorf("%s: %v allocations per run", name, n)
		}
	}
}
