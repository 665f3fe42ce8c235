package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPairKernelsMatchScalar checks the paired pure-Go kernels against the
// scalar ones they replace, bit for bit, on every radix-4 stage pair of
// N = 16..2048 with inputs up to the bound the stages assume (entries below
// 4Q where the forward transform starts), and on a sub-slice at an odd
// offset (scalar fallback).
func TestPairKernelsMatchScalar(t *testing.T) {
	for _, q := range []uint32{testQ27, testQ28} {
		for logN := 4; logN <= 11; logN++ {
			N := 1 << logN
			if (uint64(q)-1)%uint64(2*N) != 0 {
				continue
			}
			r, err := NewNTT32(N, q)
			if err != nil {
				t.Fatal(err)
			}
			if !r.noXRed {
				continue
			}
			rng := rand.New(rand.NewPCG(uint64(N), uint64(q)))
			for m, tt := 1, N/2; tt >= 4; m, tt = 4*m, tt/4 {
				t.Run(fmt.Sprintf("ct4/Q=%d/N=%d/m=%d", q, N, m), func(t *testing.T) {
					want := randPoly32(rng, N, 4*q)
					got := append([]uint32(nil), want...)
					ct4NR32(want, m, tt, r.psiRev, r.psiRevShoup, q)
					ct4NRPair32(got, m, tt, r.psiRev, r.psiRevShoup, q)
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("slot %d: %d, want %d", i, got[i], want[i])
						}
					}
				})
			}
		}
	}
	// The paired inverse against the scalar one: bit for bit when fully
	// reduced, congruent when lazy.
	for _, q := range []uint32{testQ27, testQ28} {
		for logN := 4; logN <= 11; logN++ {
			N := 1 << logN
			if (uint64(q)-1)%uint64(2*N) != 0 {
				continue
			}
			r, err := NewNTT32(N, q)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(N), 3))
			in := randPoly32(rng, N, 2*q)
			want, got := make([]uint32, N), make([]uint32, N)
			if !r.pairInverseOK(in, got) {
				t.Fatalf("N=%d: paired inverse not applicable", N)
			}
			r.inverseScalar(in, want, true)
			r.inversePair(in, got, true)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("inverse Q=%d N=%d slot %d: %d, want %d", q, N, i, got[i], want[i])
				}
			}
			r.inversePair(in, got, false)
			for i := range got {
				if got[i] >= 2*q || got[i]%q != want[i] {
					t.Fatalf("lazy inverse Q=%d N=%d slot %d: %d, want %d mod Q", q, N, i, got[i], want[i])
				}
			}
		}
	}
	// Odd offset: not 8-byte aligned, must still be right.
	r, err := NewNTT32(1024, testQ27)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	buf := make([]uint32, 1025)
	in := randPoly32(rng, 1024, testQ27)
	copy(buf[1:], in)
	want := make([]uint32, 1024)
	r.Forward(in, want)
	r.Forward(buf[1:], buf[1:])
	for i, x := range buf[1:] {
		if x != want[i] {
			t.Fatalf("unaligned: slot %d: %d, want %d", i, x, want[i])
		}
	}
}

// BenchmarkPairKernels times one forward pass (stages (4, 128) and (8, 64)
// at N = 1024) with the scalar and the paired kernel, for A/B comparisons in
// the same run.
func BenchmarkPairKernels(b *testing.B) {
	r, err := NewNTT32(1024, testQ27)
	if err != nil {
		b.Fatal(err)
	}
	a := randPoly32(rand.New(rand.NewPCG(1, 2)), 1024, testQ27)
	b.Run("ct4/scalar", func(b *testing.B) {
		for b.Loop() {
			ct4NR32(a, 4, 64, r.psiRev, r.psiRevShoup, r.Q)
		}
	})
	b.Run("ct4/pair", func(b *testing.B) {
		for b.Loop() {
			ct4NRPair32(a, 4, 64, r.psiRev, r.psiRevShoup, r.Q)
		}
	})

}
