package stdlib

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// divCase is DivModConst by d as an opCase with a Go reference (Go's / and %
// truncate toward zero, and MIN / -1 wraps, exactly the documented semantics).
func divCase(d int64, signed bool) opCase {
	return opCase{fmt.Sprintf("DivMod/d=%d/signed=%v", d, signed), same(1),
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
			q, r, err := DivModConst(b, in[0], big.NewInt(d), signed, s)
			if err != nil {
				panic(err)
			}
			return [][]ir.NodeID{q, r}
		},
		func(in []uint64, n int) []uint64 {
			if signed {
				x := sx(in[0], n)
				q := x / d
				if n < 64 && x == -1<<(n-1) && d == -1 {
					q = x // wraps at width n (Go wraps at 64 by itself)
				}
				return []uint64{uint64(q), uint64(x % d)}
			}
			return []uint64{in[0] / uint64(d), in[0] % uint64(d)}
		}}
}

func TestDivModConstExhaustive8(t *testing.T) {
	vecs := allVectors([]int{8})
	for _, s := range styles {
		for d := int64(1); d < 256; d++ {
			checkCase(t, divCase(d, false), 8, s, vecs)
		}
		for d := int64(-128); d < 128; d++ {
			if d != 0 {
				checkCase(t, divCase(d, true), 8, s, vecs)
			}
		}
	}
}

func TestDivModConstRandomWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{32, 64} {
		vecs := randomVectors(rng, []int{n}, 1024)
		divisors := []int64{1, -1, 2, 3, 7, 10, 1000, -3, -1 << (n - 1), 1<<(n-1) - 1, int64(rng.Uint32()>>1 | 1)}
		for _, d := range divisors {
			for _, s := range styles {
				checkCase(t, divCase(d, true), n, s, vecs)
				if d > 0 {
					checkCase(t, divCase(d, false), n, s, vecs)
				}
			}
		}
	}
}

func TestDivModConstErrors(t *testing.T) {
	b := ir.NewBuilder("e")
	x := b.Input("x", 8, false)
	cases := []struct {
		d      int64
		signed bool
	}{{0, false}, {0, true}, {256, false}, {-1, false}, {128, true}, {-129, true}}
	for _, c := range cases {
		if _, _, err := DivModConst(b, x, big.NewInt(c.d), c.signed, SizeOptimized); err == nil {
			t.Errorf("DivModConst(d=%d, signed=%v) on 8 bits: no error", c.d, c.signed)
		}
	}
}

func TestSelectIndexExhaustive(t *testing.T) {
	for _, tc := range []struct{ elems, idxBits int }{{1, 2}, {3, 2}, {4, 2}, {5, 3}, {5, 4}, {6, 2}} {
		ins := make([]int, tc.elems+1)
		for i := 0; i < tc.elems; i++ {
			ins[i] = 2
		}
		ins[tc.elems] = tc.idxBits
		op := opCase{fmt.Sprintf("SelectIndex/elems=%d/idx=%d", tc.elems, tc.idxBits), func(int) []int { return ins },
			func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
				return [][]ir.NodeID{SelectIndex(b, in[:tc.elems], in[tc.elems])}
			},
			func(in []uint64, n int) []uint64 {
				i := in[tc.elems]
				if i >= uint64(tc.elems) {
					return []uint64{0} // documented: out of range gives 0
				}
				return []uint64{in[i]}
			}}
		checkCase(t, op, 2, SizeOptimized, allVectors(ins))
	}
}

func TestConstant(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200; i++ {
		w := 1 + rng.IntN(100)
		v := new(big.Int).Rand(rand2big(rng), new(big.Int).Lsh(big.NewInt(1), uint(w)))
		if rng.IntN(2) == 0 {
			v.Neg(v)
		}
		b := ir.NewBuilder("k")
		bitsOut := Constant(b, v, w)
		want := new(big.Int).Mod(v, new(big.Int).Lsh(big.NewInt(1), uint(w)))
		for k, id := range bitsOut {
			got, ok := b.ConstValue(id)
			if !ok || got != (want.Bit(k) == 1) {
				t.Fatalf("Constant(%v, %d) bit %d = %v (const %v)", v, w, k, got, ok)
			}
		}
	}
}
