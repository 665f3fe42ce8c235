package bgv

import (
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// BenchmarkRowKernels measures the per-row RNS kernels of a key switch at
// m = 65537 sizes (rows of 2^16 residues, 59-bit primes): ns/op is per row,
// except for Convert: one whole base conversion from 8 to 22 primes (a
// digit's extension at the top level).
func BenchmarkRowKernels(b *testing.B) {
	const n = 1 << 16
	ps, err := ring.GeneratePrimes(59, uint64(65537)<<16, 30, nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(41, 42))
	md := newModulus(ps[0])
	x, y, out, out2 := randomRow(rng, n, md.Q), randomRow(rng, n, md.Q), make([]uint64, n), make([]uint64, n)
	b.Run("Mul", func(b *testing.B) {
		for b.Loop() {
			md.mulVec(x, y, out)
		}
	})
	b.Run("MulAdd2", func(b *testing.B) {
		for b.Loop() {
			md.mulAdd2Vec(x, y, x, out, out2, true)
		}
	})
	var mods []modulus
	for _, p := range ps {
		mods = append(mods, newModulus(p))
	}
	src, dst := mods[:8], mods[8:]
	bc := newBaseConverter(src, dst, false)
	in, ys := make([][]uint64, 8), make([][]uint64, 8)
	for i := range in {
		in[i], ys[i] = randomRow(rng, n, src[i].Q), make([]uint64, n)
	}
	outs, v := make([][]uint64, len(dst)), make([]float64, n)
	for j := range outs {
		outs[j] = make([]uint64, n)
	}
	b.Run("Convert/alpha=8/targets=22", func(b *testing.B) {
		for b.Loop() {
			bc.convert(in, outs, ys, v)
		}
	})
	sd := &scaleDown{dstPrimes: []modulus{md}}
	w, w2 := rng.Uint64N(md.Q), rng.Uint64N(md.Q)
	ws, w2s := ring.ShoupConst64(w, md.Q), ring.ShoupConst64(w2, md.Q)
	sd.inv, sd.invShoup, sd.twoInv, sd.twoInvShoup = []uint64{w}, []uint64{ws}, []uint64{w2}, []uint64{w2s}
	sd.vec = [][7]uint64{{md.Q, w, ws, ws >> 32, w2, w2s, w2s >> 32}}
	b.Run("Finish", func(b *testing.B) {
		for b.Loop() {
			sd.finish(0, x, y, out)
		}
	})
}
