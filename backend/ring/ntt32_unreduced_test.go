package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestForwardUnreduced checks that ForwardUnreduced agrees with Forward
// mod Q for every N, on 27- and 28-bit primes (unreduced last pass in pure
// Go) and on a 30-bit one too large for it (ForwardLazy), in place too.
func TestForwardUnreduced(t *testing.T) {
	for _, q := range []uint32{testQ27, testQ28, testQ30} {
		for logN := 1; logN <= 11; logN++ {
			N := 1 << logN
			if (uint64(q)-1)%uint64(2*N) != 0 {
				continue
			}
			t.Run(fmt.Sprintf("Q=%d/N=%d", q, N), func(t *testing.T) {
				r, err := NewNTT32(N, q)
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(uint64(N), uint64(q)))
				in := randPoly32(rng, N, 4*q)
				want, got := make([]uint32, N), make([]uint32, N)
				r.Forward(in, want)
				r.ForwardUnreduced(in, got)
				for i := range got {
					if got[i]%q != want[i] {
						t.Fatalf("slot %d: %d mod Q = %d, want %d", i, got[i], got[i]%q, want[i])
					}
				}
				copy(got, in)
				r.ForwardUnreduced(got, got)
				for i := range got {
					if got[i]%q != want[i] {
						t.Fatalf("in place, slot %d: %d mod Q = %d, want %d", i, got[i], got[i]%q, want[i])
					}
				}
			})
		}
	}
}
