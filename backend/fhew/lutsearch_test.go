package fhew

import (
	"math"
	"math/rand/v2"
	"testing"
)

// enumerateWeights is the plain search the depth-first one replaces: every
// vector over choices, input 0 fastest, the first with the smallest Σw².
func enumerateWeights(slots int, tables []uint64, k int, choices []int) ([]int, bool) {
	var best []int
	bestNorm := math.MaxInt
	idx := make([]int, k)
	w := make([]int, k)
	for {
		for i := range w {
			w[i] = choices[idx[i]]
		}
		if n := sumSquares(w); n < bestNorm {
			ok := true
			for _, t := range tables {
				if _, ok = lutPattern(slots, t, k, w); !ok {
					break
				}
			}
			if ok {
				best, bestNorm = append([]int(nil), w...), n
			}
		}
		i := 0
		for i < k {
			idx[i]++
			if idx[i] < len(choices) {
				break
			}
			idx[i] = 0
			i++
		}
		if i == k {
			return best, best != nil
		}
	}
}

// TestSearchMatchesEnumeration checks the depth-first weight search gives
// exactly the plain enumeration's vector: every 2- and 3-input table and
// random 4- to 6-input ones (and pairs, as multi-output plans search), at
// P = 4 and 8, for the unshifted choices and the even ones of findPlan.
func TestSearchMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, slots := range []int{4, 8} {
		even := []int{0, 2}
		if slots == 8 {
			even = []int{0, 2, -2, 4}
		}
		lists := [][]int{weightChoices(slots), even}
		for _, choices := range lists {
			for k := 2; k <= 6; k++ {
				var cases [][]uint64
				if k <= 3 {
					for tb := uint64(0); tb < 1<<(1<<uint(k)); tb++ {
						cases = append(cases, []uint64{tb})
					}
				}
				n := 40
				if k == 6 && slots == 8 {
					n = 4 // the reference takes 262144 steps per table
				}
				for c := 0; c < n; c++ {
					tb := rng.Uint64() & (1<<(1<<uint(k)) - 1)
					if k == 6 {
						tb = rng.Uint64()
					}
					cases = append(cases, []uint64{tb}, []uint64{tb, rng.Uint64() & (1<<(1<<uint(k)) - 1)})
				}
				// Feasible ones too: symmetric functions of the plain sum.
				cases = append(cases, []uint64{symmetricTable(k, 0b0110)}, []uint64{symmetricTable(k, 0b1000), symmetricTable(k, 0b1110)})
				for _, tbs := range cases {
					want, wok := enumerateWeights(slots, tbs, k, choices)
					got, _, gok := searchWeightsAll(slots, tbs, k, choices)
					if wok != gok || !equalInts(want, got) {
						t.Fatalf("P = %d, choices %v, k = %d, tables %#x: search %v (%v), enumeration %v (%v)", slots, choices, k, tbs, got, gok, want, wok)
					}
				}
			}
		}
	}
}

// symmetricTable is the k-input table of h(popcount) for popcounts 0..3 (bit c of h).
func symmetricTable(k int, h int) uint64 {
	var t uint64
	for x := 0; x < 1<<uint(k); x++ {
		c := 0
		for i := 0; i < k; i++ {
			c += x >> uint(i) & 1
		}
		if c < 4 && h>>uint(c)&1 == 1 {
			t |= 1 << uint(x)
		}
	}
	return t
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
