package ring

import "testing"

// TestRNS2DecomposeVectorAdmits checks that the vector Decompose kernel
// takes the production gadgets (cbs's blind rotation, trace, CBS levels;
// the STD128_CBS primes at N = 2048) where AVX-512 is there, and leaves the
// gadgets whose rounding constant would overflow (drop + logB > 61) to the
// Go loop.
func TestRNS2DecomposeVectorAdmits(t *testing.T) {
	r, err := NewRNS2(2048, 134176769, 134111233)
	if err != nil {
		t.Fatal(err)
	}
	out := r.NewPolys(8)
	in := r.NewPoly()
	for _, g := range []struct{ logB, digits, drop int }{{17, 2, 21}, {9, 2, 37}, {11, 5, 0}, {7, 8, 0}, {6, 3, 37}} {
		n := r.decomposeVec(in, g.logB, g.digits, g.drop, out)
		if want := map[bool]int{true: r.N, false: 0}[hasAVX512]; n != want {
			t.Errorf("gadget %+v: vector kernel covered %d coefficients, want %d", g, n, want)
		}
	}
	if n := r.decomposeVec(in, 27, 2, 35, out); n != 0 {
		t.Errorf("drop 35, logB 27: vector kernel covered %d coefficients, want 0 (Go loop)", n)
	}
}
