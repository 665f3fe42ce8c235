package fhew

import (
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// BenchmarkRingNTT times the transforms the blind rotation is made of.
func BenchmarkRingNTT(b *testing.B) {
	nt, err := ring.NewNTT32(1024, 134215681)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]uint32, 1024)
	for i := range x {
		x[i] = uint32(i * 7919 % 134215681)
	}
	b.Run("ForwardLazy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			nt.ForwardLazy(x, x)
		}
	})
	b.Run("Inverse", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			nt.Inverse(x, x)
		}
	})
}
