package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// exactPrimes are the moduli the vector kernels are checked with: the test
// primes (27, 28 and 30 bits) and the primes of the FHEW and CBS parameter
// sets (backend/fhew/params.go, backend/fhew/cbs/params.go).
var exactPrimes = []uint32{testQ27, testQ28, testQ30, 134176769, 134111233}

// TestNTT32VectorExact compares every vector transform variant bit for bit
// with the radix-2 reference (forwardRadix2_32, inverseRadix2), whose
// butterflies and final reductions are the ones the vector kernels must
// reproduce: the Lazy outputs included, not only modulo Q. It covers every
// supported N the vector path takes (N >= avxMinN) for each prime, random inputs over the whole
// accepted range and the extremes, and out == in (aliasing) as well as
// separate slices.
func TestNTT32VectorExact(t *testing.T) {
	if !hasAVX512 {
		t.Skip("vector kernels unavailable")
	}
	rng := rand.New(rand.NewPCG(71, 72))
	for _, q := range exactPrimes {
		for logN := 6; logN <= 13; logN++ {
			N := 1 << logN
			if (q-1)%uint32(2*N) != 0 || N < avxMinN {
				continue
			}
			r, err := NewNTT32(N, q)
			if err != nil {
				t.Fatal(err)
			}
			fwdIn := [][]uint32{randPoly32(rng, N, 4*q), randPoly32(rng, N, q), make([]uint32, N), make([]uint32, N)}
			for i := range N {
				fwdIn[2][i] = 4*q - 1
				fwdIn[3][i] = uint32(i%2) * (4*q - 1)
			}
			for k, in := range fwdIn {
				inv := make([]uint32, N)
				for i := range inv {
					inv[i] = in[i] % (2 * q)
				}
				for _, full := range []bool{true, false} {
					name := fmt.Sprintf("Q=%d/N=%d/input=%d/full=%v", q, N, k, full)
					want := append([]uint32(nil), in...)
					forwardRadix2_32(want, r.psiRev, r.psiRevShoup, q, full)
					got := make([]uint32, N)
					r.forward(in, got, full)
					equal32(t, name+"/Forward", got, want)
					got = append(got[:0], in...)
					r.forward(got, got, full)
					equal32(t, name+"/Forward in place", got, want)

					want = append(want[:0], inv...)
					r.inverseRadix2(want, full)
					got = make([]uint32, N)
					r.inverse(inv, got, full)
					equal32(t, name+"/Inverse", got, want)
					got = append(got[:0], inv...)
					r.inverse(got, got, full)
					equal32(t, name+"/Inverse in place", got, want)
				}
			}
		}
	}
}

// TestNTT32VectorAllocs checks that the transforms allocate nothing.
func TestNTT32VectorAllocs(t *testing.T) {
	for _, N := range []int{512, 1024, 2048} {
		r, err := NewNTT32(N, testQ28)
		if err != nil {
			t.Fatal(err)
		}
		a := randPoly32(rand.New(rand.NewPCG(1, 2)), N, testQ28)
		for name, f := range map[string]func(){
			"Forward":          func() { r.Forward(a, a) },
			"ForwardLazy":      func() { r.ForwardLazy(a, a) },
			"ForwardUnreduced": func() { r.ForwardUnreduced(a, a) },
			"Forward4Q":        func() { r.Forward4Q(a, a) },
			"InverseUnscaled":  func() { r.InverseUnscaled(a, a) },
			"Inverse":          func() { r.Inverse(a, a) },
			"InverseLazy":      func() { r.InverseLazy(a, a) },
		} {
			if n := testing.AllocsPerRun(20, f); n != 0 {
				t.Errorf("N=%d %s: %v allocations per run", N, name, n)
			}
		}
	}
}
