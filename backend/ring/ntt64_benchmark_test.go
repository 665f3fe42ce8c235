package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkNTT64 measures the 64-bit (BGV) path with a 55-bit prime.
func BenchmarkNTT64(b *testing.B) {
	q := testPrimes64[1]
	for _, N := range []int{1024, 1 << 14} {
		r, err := NewNTT64(N, q)
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		a, c, out := randPoly64(rng, N, q), randPoly64(rng, N, q), make([]uint64, N)
		b.Run(fmt.Sprintf("Forward/N=%d", N), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Forward(a, out)
			}
		})
		b.Run(fmt.Sprintf("Inverse/N=%d", N), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Inverse(a, out)
			}
		})
		b.Run(fmt.Sprintf("MulCoeffsAdd/N=%d", N), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.MulCoeffsAdd(a, c, out)
			}
		})
	}
}
