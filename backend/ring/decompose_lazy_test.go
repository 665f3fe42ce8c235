package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestDecomposeSignedLazy checks that the lazy digits are below 2Q and
// congruent mod Q to DecomposeSigned's, for the digit counts with a lazy
// loop and one without.
func TestDecomposeSignedLazy(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for _, c := range []struct {
		q                 uint32
		logB, dropped, dg int
	}{
		{testQ27, 9, 1, 2}, {testQ27, 7, 1, 3}, {testQ28, 10, 0, 3}, {testQ28, 7, 0, 4}, {testQ30, 14, 0, 2},
	} {
		t.Run(fmt.Sprintf("Q=%d/logB=%d/dropped=%d/dg=%d", c.q, c.logB, c.dropped, c.dg), func(t *testing.T) {
			m, err := NewModulus32(c.q)
			if err != nil {
				t.Fatal(err)
			}
			const n = 1024 + 7
			in := randPoly32(rng, n, c.q)
			copy(in, []uint32{0, 1, c.q - 1, c.q / 2, c.q/2 + 1, c.q / 3})
			want, got := make([][]uint32, c.dg), make([][]uint32, c.dg)
			for r := range want {
				want[r], got[r] = make([]uint32, n), make([]uint32, n)
			}
			m.DecomposeSigned(in, c.logB, c.dropped, want)
			m.DecomposeSignedLazy(in, c.logB, c.dropped, got)
			for r := range got {
				for j, x := range got[r] {
					if x >= 2*c.q || x%c.q != want[r][j] {
						t.Fatalf("digit %d of coefficient %d: %d, want %d mod Q (below 2Q)", r, j, x, want[r][j])
					}
				}
			}
			// The paired loop (aligned, dg = 2, one dropped digit) against the
			// scalar one (a copy at an odd offset is not 8-byte aligned).
			shifted := make([]uint32, n+1)
			copy(shifted[1:], in)
			sc := make([][]uint32, c.dg)
			for r := range sc {
				sc[r] = make([]uint32, n+1)[1:]
			}
			m.DecomposeSignedLazy(shifted[1:], c.logB, c.dropped, sc)
			for r := range got {
				for j, x := range got[r] {
					if x != sc[r][j] {
						t.Fatalf("digit %d of coefficient %d: %d aligned, %d unaligned", r, j, x, sc[r][j])
					}
				}
			}
			if a := testing.AllocsPerRun(5, func() { m.DecomposeSignedLazy(in, c.logB, c.dropped, got) }); a != 0 {
				t.Errorf("DecomposeSignedLazy allocates %v times", a)
			}
		})
	}
}
