package lang

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// TestWideOperators checks operators beyond 64 bits against math/big.
func TestWideOperators(t *testing.T) {
	const w = 200
	one := big.NewInt(1)
	mod := new(big.Int).Lsh(one, w)
	half := new(big.Int).Lsh(one, w-1)
	toSigned := func(x *big.Int) *big.Int {
		if x.Cmp(half) >= 0 {
			return new(big.Int).Sub(x, mod)
		}
		return x
	}
	norm := func(x *big.Int, signed bool) *big.Int {
		r := new(big.Int).Mod(x, mod)
		if signed {
			return toSigned(r)
		}
		return r
	}
	div := big.NewInt(1_000_000_007)
	cases := []struct {
		expr  string
		model func(a, b *big.Int, s uint) *big.Int
	}{
		{"a + b", func(a, b *big.Int, s uint) *big.Int { return new(big.Int).Add(a, b) }},
		{"a - b", func(a, b *big.Int, s uint) *big.Int { return new(big.Int).Sub(a, b) }},
		{"a * b", func(a, b *big.Int, s uint) *big.Int { return new(big.Int).Mul(a, b) }},
		{"a / 1_000_000_007", func(a, b *big.Int, s uint) *big.Int { return new(big.Int).Quo(a, div) }},
		{"a % 1_000_000_007", func(a, b *big.Int, s uint) *big.Int { return new(big.Int).Rem(a, div) }},
		{"a >> s", func(a, b *big.Int, s uint) *big.Int { return new(big.Int).Rsh(a, s) }},
		{"a < b ? a : b", func(a, b *big.Int, s uint) *big.Int {
			if a.Cmp(b) < 0 {
				return a
			}
			return b
		}},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, signed := range []bool{false, true} {
		T := fmt.Sprintf("u%d", w)
		if signed {
			T = fmt.Sprintf("s%d", w)
		}
		for _, tc := range cases {
			for _, style := range styles {
				src := fmt.Sprintf("circuit c(a: %s, b: %s, s: u8) -> (r: %s) {\n    r = %s;\n}", T, T, T, tc.expr)
				c, err := Compile("wide.hdl", []byte(src), Options{Style: style})
				if err != nil {
					t.Fatalf("%s\n%v", src, err)
				}
				var ins []ir.Values
				var want []*big.Int
				for range 64 {
					a, b := norm(randBig(rng, w), signed), norm(randBig(rng, w), signed)
					sh := uint(rng.IntN(256))
					ins = append(ins, ir.Values{"a": {a}, "b": {b}, "s": {big.NewInt(int64(sh))}})
					want = append(want, norm(tc.model(a, b, sh), signed))
				}
				outs, err := c.EvalBatch(ins)
				if err != nil {
					t.Fatal(err)
				}
				for i := range ins {
					if got := outs[i]["r"][0]; got.Cmp(want[i]) != 0 {
						t.Fatalf("%s %s (%v) on %v: got %v, want %v", T, tc.expr, style, ins[i], got, want[i])
					}
				}
			}
		}
	}
}

// randBig returns a random w-bit non-negative integer.
func randBig(rng *rand.Rand, w int) *big.Int {
	x := new(big.Int)
	for i := 0; i < w; i += 64 {
		x.Lsh(x, 64).Or(x, new(big.Int).SetUint64(rng.Uint64()))
	}
	return x.Rsh(x, uint((w+63)/64*64-w))
}
