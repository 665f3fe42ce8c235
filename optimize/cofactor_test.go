package optimize

import (
	"math/rand/v2"
	"testing"
)

// TestCofactorFast checks the bit-sliced cofactor against the entry-by-entry
// reference for every k, input and value, on random tables with random bits
// above the table's 2^k entries (which both must ignore).
func TestCofactorFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		table := rng.Uint64()
		for k := 1; k <= 6; k++ {
			for j := 0; j < k; j++ {
				for _, v := range []bool{false, true} {
					if got, want := cofactor(table, k, j, v), cofactorSlow(table, k, j, v); got != want {
						t.Fatalf("cofactor(%#x, k=%d, j=%d, %v) = %#x, want %#x", table, k, j, v, got, want)
					}
				}
			}
		}
	}
}
