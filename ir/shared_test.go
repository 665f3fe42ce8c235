package ir

import (
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hcc-fhe/hcc/internal/testenv"
)

// loadShared imports one of the shared Bristol circuits.
func loadShared(t testing.TB, name string) *Circuit {
	t.Helper()
	f, err := os.Open(filepath.Join(testenv.SharedCircuits(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := ReadBristol(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// transpose packs up to 64 values per bus into EvalBits words: word
// (bus offset + bit j) holds bit j of every lane's value.
func transpose(widths []int, lanes [][]uint64) []uint64 {
	total := 0
	for _, w := range widths {
		total += w
	}
	words := make([]uint64, total)
	for lane, vals := range lanes {
		off := 0
		for bi, w := range widths {
			for j := 0; j < w; j++ {
				words[off+j] |= (vals[bi] >> uint(j) & 1) << uint(lane)
			}
			off += w
		}
	}
	return words
}

// laneValue reads the value of an output bus (at bit offset off, width w <= 64)
// in one lane of EvalBits output words.
func laneValue(words []uint64, off, w, lane int) uint64 {
	var v uint64
	for j := 0; j < w; j++ {
		v |= (words[off+j] >> uint(lane) & 1) << uint(j)
	}
	return v
}

// randomWords returns n random EvalBits input words.
func randomWords(rng *rand.Rand, n int) []uint64 {
	w := make([]uint64, n)
	for i := range w {
		w[i] = rng.Uint64()
	}
	return w
}

// sameFunction checks that a and b (with identical input/output bit layouts)
// agree on 64*rounds random input vectors. It is the one equivalence check
// not taken from internal/circuittest: that kit imports ir, so ir's
// internal tests cannot use it (random circuits of every op are checked
// with the kit in equiv_test.go, package ir_test).
func sameFunction(t *testing.T, a, b *Circuit, rounds int) {
	t.Helper()
	if a.NumInputBits() != b.NumInputBits() || a.NumOutputBits() != b.NumOutputBits() {
		t.Fatalf("bit layouts differ: %d->%d vs %d->%d", a.NumInputBits(), a.NumOutputBits(), b.NumInputBits(), b.NumOutputBits())
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for r := 0; r < rounds; r++ {
		in := randomWords(rng, a.NumInputBits())
		if r == 0 {
			clear(in) // lane patterns of all zeros and all ones are edge cases
			for i := range in {
				in[i] = 0xffffffff00000000
			}
		}
		oa, ob := a.EvalBits(in), b.EvalBits(in)
		for k := range oa {
			if oa[k] != ob[k] {
				t.Fatalf("output bit %d differs: %#x vs %#x", k, oa[k], ob[k])
			}
		}
	}
}

func hexInt(t testing.TB, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		t.Fatalf("bad hex %q", s)
	}
	return v
}
