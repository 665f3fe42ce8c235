package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func benchNTT32(b *testing.B, N int, q uint32) (*NTT32, []uint32, []uint32) {
	r, err := NewNTT32(N, q)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	return r, randPoly32(rng, N, q), make([]uint32, N)
}

// BenchmarkNTT32 measures one transform per op at the FHEW sizes with the
// 27-bit prime of OpenFHE's STD128 sets (28-bit for N > 1024).
func BenchmarkNTT32(b *testing.B) {
	for _, N := range []int{512, 1024, 2048} {
		q := uint32(testQ27)
		if N > 1024 {
			q = testQ28
		}
		b.Run(fmt.Sprintf("Forward/N=%d", N), func(b *testing.B) {
			r, a, out := benchNTT32(b, N, q)
			b.ReportAllocs()
			for b.Loop() {
				r.Forward(a, out)
			}
		})
		b.Run(fmt.Sprintf("ForwardLazy/N=%d", N), func(b *testing.B) {
			r, a, out := benchNTT32(b, N, q)
			b.ReportAllocs()
			for b.Loop() {
				r.ForwardLazy(a, out)
			}
		})
		b.Run(fmt.Sprintf("ForwardUnreduced/N=%d", N), func(b *testing.B) {
			r, a, out := benchNTT32(b, N, q)
			b.ReportAllocs()
			for b.Loop() {
				r.ForwardUnreduced(a, out)
			}
		})
		b.Run(fmt.Sprintf("Inverse/N=%d", N), func(b *testing.B) {
			r, a, out := benchNTT32(b, N, q)
			b.ReportAllocs()
			for b.Loop() {
				r.Inverse(a, out)
			}
		})
	}
}

func BenchmarkPointwise32(b *testing.B) {
	const N = 1024
	r, a, out := benchNTT32(b, N, testQ27)
	c := randPoly32(rand.New(rand.NewPCG(3, 4)), N, testQ27)
	acc := make([]uint64, N)
	b.Run("MulCoeffs/N=1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.MulCoeffs(a, c, out)
		}
	})
	b.Run("MulCoeffsAdd/N=1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.MulCoeffsAdd(a, c, out)
		}
	})
	b.Run("MulCoeffsAddLazy/N=1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.MulCoeffsAddLazy(a, c, acc)
		}
	})
	b.Run("ReduceLazy/N=1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.ReduceLazy(acc, out)
		}
	})
	digits := [][]uint32{make([]uint32, N), make([]uint32, N), make([]uint32, N)}
	b.Run("DecomposeSigned/N=1024/dg=3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.DecomposeSigned(a, 7, 1, digits)
		}
	})
	idx := AutomorphismNTTIndex(N, 5)
	b.Run("AutomorphismNTT/N=1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			AutomorphismNTT(a, idx, out)
		}
	})
	cidx := AutomorphismCoeffIndex(N, 5)
	b.Run("AutomorphismCoeffWithIndex/N=1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.AutomorphismCoeffWithIndex(a, cidx, out)
		}
	})
}
