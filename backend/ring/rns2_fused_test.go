package ring

import (
	"math/rand/v2"
	"testing"
)

// dotRowsMono2Ref is DotRowsMono2 as the unfused sequence GINX used
// before it: two DotRows and four MulCoeffsAdd, with the monomials taken
// out of Montgomery form (times 2^-32 mod Q_i) first.
func (r *RNS2) dotRowsMono2Ref(digits []Poly2, rowsB1, rowsA1, rowsB2, rowsA2 []Poly2, mono1, mono2, accB, accA Poly2) {
	pB, pA, mB, mA := r.NewPoly(), r.NewPoly(), r.NewPoly(), r.NewPoly()
	r.dotRowsRef(digits, rowsB1, rowsA1, pB, pA)
	r.dotRowsRef(digits, rowsB2, rowsA2, mB, mA)
	mu1, mu2 := r.NewPoly(), r.NewPoly()
	for i, nt := range r.NTT {
		inv, _ := InvMod((1<<32)%uint64(nt.Q), uint64(nt.Q))
		nt.MulScalar(mono1[i], uint32(inv), mu1[i])
		nt.MulScalar(mono2[i], uint32(inv), mu2[i])
	}
	r.MulCoeffsAdd(mu1, pB, accB)
	r.MulCoeffsAdd(mu1, pA, accA)
	r.MulCoeffsAdd(mu2, mB, accB)
	r.MulCoeffsAdd(mu2, mA, accA)
}

// TestMontgomeryForm checks MontgomeryForm against x·2^32 mod Q_i and the
// REDC constants against their definitions.
func TestMontgomeryForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, r := range rnsRings(t) {
		a := r.NewPoly()
		for i, nt := range r.NTT {
			copy(a[i], randPoly32(rng, r.N, nt.Q))
			if m := montNegInv32(nt.Q); m*nt.Q != ^uint32(0) {
				t.Fatalf("Q=%d: -Q^-1 = %d, Q·it = %d", nt.Q, m, m*nt.Q)
			}
			if v := montRInv(nt.Q); v >= uint64(nt.Q) || v<<32%uint64(nt.Q) != 1 {
				t.Fatalf("Q=%d: 2^-32 = %d", nt.Q, v)
			}
		}
		got := r.NewPoly()
		r.MontgomeryForm(a, got)
		for i, nt := range r.NTT {
			for k := range got[i] {
				if want := uint32(uint64(a[i][k]) << 32 % uint64(nt.Q)); got[i][k] != want {
					t.Fatalf("N=%d residue %d slot %d: %d, want %d", r.N, i, k, got[i][k], want)
				}
			}
		}
	}
}

// fusedOperands holds random DotRowsMono2 operands; edge selects how
// entries are drawn: 0 uniform, 1 all at their maximum (the largest sums),
// 2 a mix of 0, 1, Q_i - 1 and the maximum. The digits are drawn below
// 4Q_i (their admitted range, Forward4Q's outputs; below 2^32 for primes
// of 30 bits), everything else below Q_i.
type fusedOperands struct {
	digits, b1, a1, b2, a2 []Poly2
	m1, m2, accB, accA     Poly2
}

func newFusedOperands(r *RNS2, rng *rand.Rand, nd, edge int) *fusedOperands {
	draw := func(q uint32, digit bool) uint32 {
		top := uint64(q)
		if digit {
			top = min(4*top, 1<<32)
		}
		switch edge {
		case 1:
			return uint32(top - 1)
		case 2:
			return [4]uint32{0, 1, q - 1, uint32(top - 1)}[rng.IntN(4)]
		}
		return uint32(rng.Uint64N(top))
	}
	rnd := func(digit bool) Poly2 {
		p := r.NewPoly()
		for k := range p[0] {
			p[0][k], p[1][k] = draw(r.Q0, digit), draw(r.Q1, digit)
		}
		return p
	}
	o := &fusedOperands{m1: rnd(false), m2: rnd(false), accB: rnd(false), accA: rnd(false)}
	for range nd {
		o.digits, o.b1, o.a1 = append(o.digits, rnd(true)), append(o.b1, rnd(false)), append(o.a1, rnd(false))
		o.b2, o.a2 = append(o.b2, rnd(false)), append(o.a2, rnd(false))
	}
	return o
}

func clonePoly(r *RNS2, p Poly2) Poly2 {
	q := r.NewPoly()
	copy(q[0], p[0])
	copy(q[1], p[1])
	return q
}

func equalPoly(p, q Poly2) bool {
	for i := range 2 {
		for k := range p[i] {
			if p[i][k] != q[i][k] {
				return false
			}
		}
	}
	return true
}

// TestRNS2DotRowsMono2 checks DotRowsMono2 (the vector kernel where it
// applies) and its Go loop against the unfused sequence, bit for bit, on
// uniform and edge inputs for 1..16 digits (and 17, past the kernel).
func TestRNS2DotRowsMono2(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	rings := append(rnsRings(t), newTestRNS2(t, 32, 27))
	for _, r := range rings {
		for _, nd := range []int{1, 2, 3, 4, 5, 8, 16, 17} {
			for edge := range 3 {
				o := newFusedOperands(r, rng, nd, edge)
				wantB, wantA := clonePoly(r, o.accB), clonePoly(r, o.accA)
				r.dotRowsMono2Ref(o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m2, wantB, wantA)
				gotB, gotA := clonePoly(r, o.accB), clonePoly(r, o.accA)
				r.DotRowsMono2(o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m2, gotB, gotA)
				if !equalPoly(gotB, wantB) || !equalPoly(gotA, wantA) {
					t.Fatalf("N=%d Q0=%d digits=%d edge=%d: DotRowsMono2 differs from the unfused sequence", r.N, r.Q0, nd, edge)
				}
				goB, goA := clonePoly(r, o.accB), clonePoly(r, o.accA)
				r.dotRowsMono2Go(o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m2, goB, goA)
				if !equalPoly(goB, wantB) || !equalPoly(goA, wantA) {
					t.Fatalf("N=%d Q0=%d digits=%d edge=%d: dotRowsMono2Go differs from the unfused sequence", r.N, r.Q0, nd, edge)
				}
			}
		}
	}
}

// TestRNS2DotRowsMono2Panics checks that too few rows are refused.
func TestRNS2DotRowsMono2Panics(t *testing.T) {
	r := newTestRNS2(t, 16, 27)
	o := newFusedOperands(r, rand.New(rand.NewPCG(1, 2)), 2, 0)
	defer func() {
		if recover() == nil {
			t.Fatal("DotRowsMono2 with one row for two digits did not panic")
		}
	}()
	r.DotRowsMono2(o.digits, o.b1[:1], o.a1, o.b2, o.a2, o.m1, o.m2, o.accB, o.accA)
}

// TestRNS2DotRowsMono2Allocs checks that both paths allocate nothing.
func TestRNS2DotRowsMono2Allocs(t *testing.T) {
	r := newTestRNS2(t, 2048, 27)
	o := newFusedOperands(r, rand.New(rand.NewPCG(3, 4)), 4, 0)
	if n := testing.AllocsPerRun(10, func() {
		r.DotRowsMono2(o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m2, o.accB, o.accA)
	}); n != 0 {
		t.Fatalf("DotRowsMono2: %v allocations", n)
	}
	if n := testing.AllocsPerRun(10, func() {
		r.dotRowsMono2Go(o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m2, o.accB, o.accA)
	}); n != 0 {
		t.Fatalf("dotRowsMono2Go: %v allocations", n)
	}
}

// BenchmarkRNS2DotRowsMono2 is one GINX step's pointwise part at the
// production shape (N = 2048, 4 digits), fused.
func BenchmarkRNS2DotRowsMono2(b *testing.B) {
	r := newTestRNS2(b, 2048, 27)
	o := newFusedOperands(r, rand.New(rand.NewPCG(5, 6)), 4, 0)
	for b.Loop() {
		r.DotRowsMono2(o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m2, o.accB, o.accA)
	}
}

// BenchmarkRNS2DotRowsMono2Unfused is the same step as two DotRows and
// four MulCoeffsAdd (what GINX did before DotRowsMono2).
func BenchmarkRNS2DotRowsMono2Unfused(b *testing.B) {
	r := newTestRNS2(b, 2048, 27)
	o := newFusedOperands(r, rand.New(rand.NewPCG(5, 6)), 4, 0)
	pB, pA, mB, mA := r.NewPoly(), r.NewPoly(), r.NewPoly(), r.NewPoly()
	for b.Loop() {
		r.DotRows(o.digits, o.b1, o.a1, pB, pA)
		r.DotRows(o.digits, o.b2, o.a2, mB, mA)
		r.MulCoeffsAdd(o.m1, pB, o.accB)
		r.MulCoeffsAdd(o.m1, pA, o.accA)
		r.MulCoeffsAdd(o.m2, mB, o.accB)
		r.MulCoeffsAdd(o.m2, mA, o.accA)
	}
}

// BenchmarkRNS2DotRowsMono2Stream is BenchmarkRNS2DotRowsMono2 with the
// rows of a different key in every call (512 keys, 128 MiB: beyond the
// caches, as in a blind rotation, where the rows stream from memory).
func BenchmarkRNS2DotRowsMono2Stream(b *testing.B) {
	r := newTestRNS2(b, 2048, 27)
	o := newFusedOperands(r, rand.New(rand.NewPCG(5, 6)), 4, 0)
	const keys = 512
	rows := make([][]Poly2, keys)
	for k := range rows {
		rows[k] = r.NewPolys(16)
		for _, p := range rows[k] {
			for i := range 2 {
				for j := range p[i] {
					p[i][j] = uint32(j*7+k) % r.Q1
				}
			}
		}
	}
	b.ResetTimer()
	k := 0
	for b.Loop() {
		ks := rows[k%keys]
		k++
		r.DotRowsMono2(o.digits, ks[0:4], ks[4:8], ks[8:12], ks[12:16], o.m1, o.m2, o.accB, o.accA)
	}
}
