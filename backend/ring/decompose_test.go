package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestDecomposeSigned checks the digit bounds and the exact reconstruction
// Σ d_r·B^(r+dropped) = round(centred x / B^dropped)·B^dropped, on random
// and edge coefficients, with lengths that exercise the vector kernel and
// its Go tail.
func TestDecomposeSigned(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, c := range []struct {
		q                 uint32
		logB, dropped, dg int
	}{
		{testQ27, 9, 1, 2}, {testQ27, 7, 1, 3}, {testQ28, 10, 0, 3}, {testQ28, 7, 0, 4},
		{testQ30, 5, 2, 4}, {testQ27, 1, 0, 8}, {testQ27, 27, 0, 1},
	} {
		t.Run(fmt.Sprintf("Q=%d/logB=%d/dropped=%d/dg=%d", c.q, c.logB, c.dropped, c.dg), func(t *testing.T) {
			m, err := NewModulus32(c.q)
			if err != nil {
				t.Fatal(err)
			}
			const n = 1024 + 7
			in := randPoly32(rng, n, c.q)
			copy(in, []uint32{0, 1, c.q - 1, c.q / 2, c.q/2 + 1, c.q / 3})
			out := make([][]uint32, c.dg)
			for r := range out {
				out[r] = make([]uint32, n)
			}
			m.DecomposeSigned(in, c.logB, c.dropped, out)
			B := int64(1) << c.logB
			scale := int64(1) << (c.logB * c.dropped)
			for j, x := range in {
				xc := m.Centered(x)
				want := xc // round half up to a multiple of scale
				if scale > 1 {
					want = floorDiv(xc+scale/2, scale) * scale
				}
				var sum, pw int64 = 0, scale
				for r := 0; r < c.dg; r++ {
					d := m.Centered(out[r][j])
					if r < c.dg-1 && (d < -B/2 || d >= B/2) {
						t.Fatalf("coefficient %d digit %d = %d outside [-B/2, B/2)", j, r, d)
					}
					sum += d * pw
					pw *= B
				}
				if sum != want {
					t.Fatalf("coefficient %d = %d (centred %d): digits give %d, want %d", j, x, xc, sum, want)
				}
			}
		})
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
