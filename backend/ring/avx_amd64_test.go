//go:build amd64 && !purego

package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPointwise32VectorMatchesGo runs each vectorised Modulus32 operation with
// the vector kernels switched off and on and compares the results bit for bit.
func TestPointwise32VectorMatchesGo(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512F on this CPU")
	}
	defer func() { hasAVX512 = true }()
	rng := rand.New(rand.NewPCG(41, 42))
	for _, q := range []uint32{testQ27, testQ30} {
		m, err := NewModulus32(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{7, 8, 1024, 1029} {
			a, b, c := randPoly32(rng, n, 2*q), randPoly32(rng, n, 2*q), randPoly32(rng, n, q)
			a[0], b[0] = 2*q-1, 2*q-1
			acc := make([]uint64, n)
			for i := range acc {
				acc[i] = rng.Uint64()
			}
			acc[0] = ^uint64(0)
			run := func() [][]uint32 {
				o1, o2, o3, o4 := make([]uint32, n), make([]uint32, n), make([]uint32, n), make([]uint32, n)
				m.MulCoeffs(a, b, o1)
				copy(o2, c)
				m.MulCoeffsAdd(a, b, o2)
				m.ReduceLazy(acc, o3)
				l := make([]uint64, n)
				copy(l, acc[:n])
				for i := range l {
					l[i] >>= 4 // leave room for the products
				}
				m.MulCoeffsAddLazy(a, b, l)
				m.ReduceLazy(l, o4)
				return [][]uint32{o1, o2, o3, o4}
			}
			hasAVX512 = false
			want := run()
			hasAVX512 = true
			got := run()
			for k := range want {
				equal32(t, fmt.Sprintf("Q=%d n=%d op=%d", q, n, k), got[k], want[k])
			}
		}
	}
}

// TestDecomposeVectorMatchesGo compares the vector DecomposeSigned kernel
// with the Go loop bit for bit.
func TestDecomposeVectorMatchesGo(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512F on this CPU")
	}
	defer func() { hasAVX512 = true }()
	rng := rand.New(rand.NewPCG(53, 54))
	m, _ := NewModulus32(testQ27)
	in := randPoly32(rng, 1024, testQ27)
	for _, dg := range []int{1, 2, 3, 4} {
		run := func() [][]uint32 {
			out := make([][]uint32, dg)
			for r := range out {
				out[r] = make([]uint32, len(in))
			}
			m.DecomposeSigned(in, 6, 1, out)
			return out
		}
		hasAVX512 = false
		want := run()
		hasAVX512 = true
		got := run()
		for r := range want {
			equal32(t, fmt.Sprintf("dg=%d digit %d", dg, r), got[r], want[r])
		}
	}
}
