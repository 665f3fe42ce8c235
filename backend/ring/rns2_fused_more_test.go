package ring

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// mono2LazyBar and mono2Barrett1 are the vector DotRowsMono2 kernel's two
// reductions (LAZYBAR and BARRETT1 in rns2_fused_amd64.s) in Go, lane for
// lane, so that their bounds can be checked at the extremes.
func mono2LazyBar(x uint64, q uint32) uint64 {
	b := uint(bits.Len32(q))
	mu := (uint64(1) << (b + 31)) / uint64(q)
	t := uint64(uint32(x>>(b-1))) * mu >> 32
	return x - uint64(uint32(t))*uint64(q)
}

// mono2Redc is the kernels' final reduction of a digit sum (REDC in
// rns2_fused_amd64.s): (x + m·Q)/2^32 with m = x·(-Q^-1) mod 2^32.
func mono2Redc(x uint64, q uint32) uint64 {
	m := uint32(x) * montNegInv32(q)
	return (x + uint64(m)*uint64(q)) >> 32
}

func mono2Barrett1(x uint64, q uint32) uint64 {
	b := uint(bits.Len32(q))
	mu := (uint64(1) << (b + 31)) / uint64(q)
	t := uint64(uint32(x>>(b-2))) * mu >> 33
	x -= uint64(uint32(t)) * uint64(q)
	return min(x, x-uint64(q)) // VPMINUQ with the wrapped difference
}

// TestDotRowsMono2Reductions checks, for every prime dotRowsMono2Group
// admits among the CBS primes and primes of 14 to 29 bits, that the lazy
// reduction of a digit sum (a group of digits below 4Q on a sum already
// reduced to [0, 3Q)) lands in [0, 3Q) and congruent, its REDC in [0, 2Q)
// and congruent to the sum·2^-32, and the final reduction in [0, Q) and
// congruent, over the whole admitted range's extremes (0,
// multiples of Q and their neighbours, the maximum) and random values; and
// that the group is the largest that fits (one digit more overflows the
// lazy reduction's range).
func TestDotRowsMono2Reductions(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	primes := []uint32{134176769, 134111233}
	for _, bitSize := range []int{14, 20, 26, 27, 28, 29} {
		ps, err := GenerateNTTPrimes(bitSize, 16, 2)
		if err != nil {
			t.Fatal(err)
		}
		primes = append(primes, uint32(ps[0]), uint32(ps[1]))
	}
	accepted := 0
	for _, q := range primes {
		g := dotRowsMono2Group(q)
		if g == 0 {
			continue
		}
		accepted++
		b := uint(bits.Len32(q))
		s := uint64(q - 1)
		lazyMax, finalMax := (3*s+2)+uint64(g)*(4*s+3)*s, s+2*s*(3*s+2)
		if g < maxFusedDigits && lazyMax+(4*s+3)*s < 1<<(31+b) {
			t.Fatalf("Q=%d: group %d is not the largest that fits", q, g)
		}
		check := func(x uint64) {
			if x <= lazyMax {
				if y := mono2LazyBar(x, q); y >= 3*uint64(q) || y%uint64(q) != x%uint64(q) {
					t.Fatalf("Q=%d group=%d: lazy reduction of %d gives %d", q, g, x, y)
				}
				if y := mono2Redc(x, q); y >= 2*uint64(q) || (y<<32)%uint64(q) != x%uint64(q) {
					t.Fatalf("Q=%d group=%d: REDC of %d gives %d", q, g, x, y)
				}
			}
			if x <= finalMax {
				if y := mono2Barrett1(x, q); y != x%uint64(q) {
					t.Fatalf("Q=%d group=%d: final reduction of %d gives %d", q, g, x, y)
				}
			}
		}
		for _, top := range []uint64{lazyMax, finalMax} {
			for k := uint64(0); k < 64; k++ {
				check(k)
				check(top - k)
				m := (top / uint64(q)) - k
				check(m*uint64(q) - 1)
				check(m * uint64(q))
				check(m*uint64(q) + uint64(q) - 1)
			}
			for range 20000 {
				check(rng.Uint64N(top + 1))
			}
		}
	}
	if accepted == 0 {
		t.Fatal("no prime admitted")
	}
	if g := dotRowsMono2Group(134176769); g != 4 {
		t.Fatalf("CBS prime: group %d, want 4 (the blind rotation's digits without intermediate reduction)", g)
	}
}

// TestDotRowsMono2Admits checks that the vector kernel takes the CBS shape
// (N = 2048, the STD128_CBS primes, 1..16 digits) where AVX-512 is there,
// and what it computes there equals the unfused sequence.
func TestDotRowsMono2Admits(t *testing.T) {
	r, err := NewRNS2(2048, 134176769, 134111233)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, nd := range []int{1, 2, 4, 16} {
		o := newFusedOperands(r, rng, nd, 1)
		wantB, wantA := clonePoly(r, o.accB), clonePoly(r, o.accA)
		r.dotRowsMono2Ref(o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m2, wantB, wantA)
		gotB, gotA := clonePoly(r, o.accB), clonePoly(r, o.accA)
		ran := r.dotRowsMono2Vec(o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m2, gotB, gotA)
		if ran != hasAVX512 {
			t.Fatalf("digits=%d: vector kernel ran %v, AVX-512 %v", nd, ran, hasAVX512)
		}
		if ran && (!equalPoly(gotB, wantB) || !equalPoly(gotA, wantA)) {
			t.Fatalf("digits=%d: vector kernel differs from the unfused sequence", nd)
		}
	}
}

// TestRNS2DotRowsMono2Aliasing checks the operand sharing callers produce:
// both monomials the same slice (the blind rotation's a = 0 and a = M/2),
// the same row slices in several roles and a digit repeated, each bit for
// bit against the unfused sequence, on every ring size of the tests (N = 16
// runs only the kernel's last-block path).
func TestRNS2DotRowsMono2Aliasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	rings := append(rnsRings(t), newTestRNS2(t, 32, 27), newTestRNS2(t, 16, 27))
	for _, r := range rings {
		for edge := range 3 {
			o := newFusedOperands(r, rng, 4, edge)
			cases := []struct {
				name              string
				d, b1, a1, b2, a2 []Poly2
				m1, m2            Poly2
			}{
				{"mono1 = mono2", o.digits, o.b1, o.a1, o.b2, o.a2, o.m1, o.m1},
				{"rows shared", o.digits, o.b1, o.b1, o.b1, o.a1, o.m1, o.m2},
				{"digit repeated", []Poly2{o.digits[0], o.digits[0], o.digits[1], o.digits[0]}, o.b1, o.a1, o.b2, o.a2, o.m2, o.m1},
				{"digit is a row", []Poly2{o.b1[0], o.digits[1], o.a2[3], o.digits[3]}, o.b1, o.a1, o.b2, o.a2, o.m1, o.a2[0]},
			}
			for _, c := range cases {
				wantB, wantA := clonePoly(r, o.accB), clonePoly(r, o.accA)
				r.dotRowsMono2Ref(c.d, c.b1, c.a1, c.b2, c.a2, c.m1, c.m2, wantB, wantA)
				gotB, gotA := clonePoly(r, o.accB), clonePoly(r, o.accA)
				r.DotRowsMono2(c.d, c.b1, c.a1, c.b2, c.a2, c.m1, c.m2, gotB, gotA)
				if !equalPoly(gotB, wantB) || !equalPoly(gotA, wantA) {
					t.Fatalf("N=%d Q0=%d edge=%d %s: DotRowsMono2 differs from the unfused sequence", r.N, r.Q0, edge, c.name)
				}
			}
		}
	}
}
