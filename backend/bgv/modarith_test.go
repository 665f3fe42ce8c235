package bgv

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

func TestModArith(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, q := range []uint64{3, 17, 65537, 1048391, 1<<61 - 1, 2305843009213616129} {
		m := newModulus(q)
		for k := 0; k < 2000; k++ {
			a, b := rng.Uint64N(q), rng.Uint64N(q)
			hi, lo := bits.Mul64(a, b)
			want := bits.Rem64(hi, lo, q)
			if got := m.mul(a, b); got != want {
				t.Fatalf("q=%d: mul(%d, %d) = %d, want %d", q, a, b, got, want)
			}
			x := rng.Uint64()
			if got := m.reduce(x); got != x%q {
				t.Fatalf("q=%d: reduce(%d) = %d, want %d", q, x, got, x%q)
			}
			if got := mulShoup(x, b, shoup(b, q), q); got != mulModSlow(x%q, b, q) {
				t.Fatalf("q=%d: mulShoup(%d, %d) = %d", q, x, b, got)
			}
		}
	}
}
