package bgv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkTransform measures one prime's forward and inverse transform
// (ns/op is per prime) for the predefined sets, including m = 65537.
func BenchmarkTransform(b *testing.B) {
	for _, lit := range []ParamsLiteral{ToyM257Literal, M8191Literal, M65537Literal} {
		pr := testParams(b, lit)
		r := pr.RingQ()
		for _, i := range []int{0, 1, r.MaxLevel()} {
			tr := r.Transform(i)
			rng := rand.New(rand.NewPCG(1, 1))
			a := randomRow(rng, pr.N(), tr.Prime())
			scratch := make([]uint64, tr.ScratchLen())
			name := fmt.Sprintf("m=%d/p=%d/aux=%v", pr.M(), tr.Prime(), tr.Auxiliary())
			b.Run("Forward/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tr.Forward(a, a, scratch)
				}
			})
			b.Run("Inverse/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tr.Inverse(a, a, scratch)
				}
			})
		}
	}
}

// BenchmarkNewParams measures building the m = 65537 set (prime generation
// and the kernels of every prime).
func BenchmarkNewParams(b *testing.B) {
	for b.Loop() {
		if _, err := NewParams(M65537Literal); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncoder measures building the slot structure and encoding/decoding
// at m = 8191 and m = 65537.
func BenchmarkEncoder(b *testing.B) {
	for _, lit := range []ParamsLiteral{M8191Literal, M65537Literal} {
		pr := testParams(b, lit)
		var e *Encoder
		b.Run(fmt.Sprintf("New/m=%d", pr.M()), func(b *testing.B) {
			for b.Loop() {
				var err error
				if e, err = NewEncoder(pr); err != nil {
					b.Fatal(err)
				}
			}
		})
		rng := rand.New(rand.NewPCG(1, 2))
		v := randomSlots(rng, e)
		a := NewBinaryPoly(pr.N())
		b.Run(fmt.Sprintf("Encode/m=%d", pr.M()), func(b *testing.B) {
			for b.Loop() {
				_ = e.Encode(v, a)
			}
		})
		b.Run(fmt.Sprintf("Decode/m=%d", pr.M()), func(b *testing.B) {
			for b.Loop() {
				e.Decode(a, v)
			}
		})
	}
}
