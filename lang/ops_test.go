package lang

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

// opCase is one operator written in the HDL, checked against a Go model on
// raw bit patterns. a has type ta, b type tb ("" for unary cases), the
// result type tr; the model returns the result pattern (masked by the harness).
type opCase struct {
	name       string
	ta, tb, tr string
	expr       string
	model      func(a, b uint64) uint64
}

func typeName(w int, signed bool) string {
	if signed {
		return fmt.Sprintf("s%d", w)
	}
	if w == 1 {
		return "bit"
	}
	return fmt.Sprintf("u%d", w)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// opCases lists every operator on w-bit operands of the given signedness.
// amountW is the width of the runtime shift amount.
func opCases(w int, signed bool, amountW int) []opCase {
	T, m := typeName(w, signed), mask(w)
	amt := typeName(amountW, false)
	// less compares patterns as values of T.
	less := func(a, b uint64) bool {
		if signed {
			return sx(a, w) < sx(b, w)
		}
		return a < b
	}
	bin := func(name, expr string, f func(a, b uint64) uint64) opCase {
		return opCase{name: name, ta: T, tb: T, tr: T, expr: expr, model: f}
	}
	cmp := func(name, expr string, f func(a, b uint64) bool) opCase {
		return opCase{name: name, ta: T, tb: T, tr: "bit", expr: expr, model: func(a, b uint64) uint64 { return b2u(f(a, b)) }}
	}
	cases := []opCase{
		bin("add", "a + b", func(a, b uint64) uint64 { return a + b }),
		bin("sub", "a - b", func(a, b uint64) uint64 { return a - b }),
		bin("mul", "a * b", func(a, b uint64) uint64 { return a * b }),
		bin("and", "a & b", func(a, b uint64) uint64 { return a & b }),
		bin("or", "a | b", func(a, b uint64) uint64 { return a | b }),
		bin("xor", "a ^ b", func(a, b uint64) uint64 { return a ^ b }),
		bin("add_literal", "a + 3", func(a, b uint64) uint64 { return a + 3 }),
		bin("literal_sub", "5 - a", func(a, b uint64) uint64 { return 5 - a }),
		bin("mixed", "(a * 3 + b) ^ (a - (b & 0x0f))", func(a, b uint64) uint64 { return (a*3 + b) ^ (a - b&0x0f) }),
		bin("ternary", "a[0] ? a : b", func(a, b uint64) uint64 {
			if a&1 == 1 {
				return a
			}
			return b
		}),
		cmp("eq", "a == b", func(a, b uint64) bool { return a&m == b&m }),
		cmp("ne", "a != b", func(a, b uint64) bool { return a&m != b&m }),
		cmp("lt", "a < b", less),
		cmp("le", "a <= b", func(a, b uint64) bool { return !less(b, a) }),
		cmp("gt", "a > b", func(a, b uint64) bool { return less(b, a) }),
		cmp("ge", "a >= b", func(a, b uint64) bool { return !less(a, b) }),
		cmp("lt_zero", "a < 0", func(a, b uint64) bool { return less(a, 0) }),
		{name: "neg", ta: T, tr: T, expr: "-a", model: func(a, b uint64) uint64 { return -a }},
		{name: "not", ta: T, tr: T, expr: "~a", model: func(a, b uint64) uint64 { return ^a }},
		{name: "bang", ta: T, tr: "bit", expr: "!a[1]", model: func(a, b uint64) uint64 { return ^a >> 1 & 1 }},
		{name: "shl_var", ta: T, tb: amt, tr: T, expr: "a << b", model: func(a, b uint64) uint64 {
			return a << b
		}},
		{name: "shr_var", ta: T, tb: amt, tr: T, expr: "a >> b", model: func(a, b uint64) uint64 {
			if signed {
				return uint64(sx(a, w) >> b)
			}
			return (a & m) >> b
		}},
		{name: "bit_var", ta: T, tb: amt, tr: "bit", expr: fmt.Sprintf("a[b %% %d]", w), model: func(a, b uint64) uint64 {
			return a >> (b % uint64(w)) & 1
		}},
		{name: "concat", ta: T, tb: T, tr: typeName(w, false), expr: fmt.Sprintf("{a[%d:0], b[3:0], a[0]}", w-6), model: func(a, b uint64) uint64 {
			return a<<5 | (b&15)<<1 | a&1
		}},
	}
	for _, k := range []int{0, 1, 3, w - 1, w, w + 5} {
		cases = append(cases,
			opCase{name: fmt.Sprintf("shl%d", k), ta: T, tr: T, expr: fmt.Sprintf("a << %d", k), model: func(a, b uint64) uint64 {
				if k >= 64 {
					return 0
				}
				return a << uint(k)
			}},
			opCase{name: fmt.Sprintf("shr%d", k), ta: T, tr: T, expr: fmt.Sprintf("a >> %d", k), model: func(a, b uint64) uint64 {
				if signed {
					return uint64(sx(a, w) >> uint(min(k, 63)))
				}
				if k >= 64 {
					return 0
				}
				return (a & m) >> uint(k)
			}})
	}
	divisors := []int64{1, 2, 3, 7, 10, int64(m >> 1)}
	if signed {
		divisors = append(divisors, -1, -3, -8, -int64(m>>1)-1)
	} else {
		divisors = append(divisors, int64(m>>1)+1, int64(m))
	}
	if w == 64 && !signed {
		divisors = divisors[:len(divisors)-2] // these do not fit an int64 here
		divisors = append(divisors, 1<<62+12345)
	}
	for _, d := range divisors {
		cases = append(cases,
			opCase{name: fmt.Sprintf("div%d", d), ta: T, tr: T, expr: fmt.Sprintf("a / %d", d), model: func(a, b uint64) uint64 {
				if signed {
					return uint64(sx(a, w) / d)
				}
				return (a & m) / uint64(d)
			}},
			opCase{name: fmt.Sprintf("mod%d", d), ta: T, tr: T, expr: fmt.Sprintf("a %% %d", d), model: func(a, b uint64) uint64 {
				if signed {
					return uint64(sx(a, w) % d)
				}
				return (a & m) % uint64(d)
			}})
	}
	for _, to := range []struct {
		w      int
		signed bool
	}{{w / 2, false}, {w / 2, true}, {w, !signed}, {2 * w, false}, {2 * w, true}} {
		if to.w > 64 {
			continue
		}
		cases = append(cases, opCase{name: "as_" + typeName(to.w, to.signed), ta: T, tr: typeName(to.w, to.signed),
			expr: "a as " + typeName(to.w, to.signed), model: func(a, b uint64) uint64 {
				if signed { // extension follows the source's signedness
					return uint64(sx(a, w))
				}
				return a & m
			}})
	}
	return cases
}

// compileCase builds the one-line circuit of a case.
func compileCase(t *testing.T, tc opCase, style stdlib.Style) *ir.Circuit {
	t.Helper()
	params := "a: " + tc.ta
	if tc.tb != "" {
		params += ", b: " + tc.tb
	}
	src := fmt.Sprintf("circuit op(%s) -> (r: %s) {\n    r = %s;\n}\n", params, tc.tr, tc.expr)
	c, err := Compile(tc.name+".hdl", []byte(src), Options{Style: style})
	if err != nil {
		t.Fatalf("%s\n%v", src, err)
	}
	return c
}

// checkCase evaluates a case on the given (a, b) patterns.
func checkCase(t *testing.T, tc opCase, c *ir.Circuit, vecs [][]uint64) {
	t.Helper()
	outW := c.Outputs[0].Width
	got := evalPatterns(c, vecs)
	fails := 0
	for i, v := range vecs {
		b := uint64(0)
		if len(v) > 1 {
			b = v[1]
		}
		want := tc.model(v[0], b) & mask(outW)
		if got[i][0] != want {
			t.Errorf("%s with a=%#x b=%#x: got %#x, want %#x", tc.expr, v[0], b, got[i][0], want)
			if fails++; fails > 5 {
				t.FailNow()
			}
		}
	}
}

var styles = []stdlib.Style{stdlib.SizeOptimized, stdlib.DepthOptimized}

// TestOperatorsExhaustive8 checks every operator on all 8-bit operand
// pairs (all 256 values for unary and constant-operand cases), both styles.
func TestOperatorsExhaustive8(t *testing.T) {
	for _, style := range styles {
		for _, signed := range []bool{false, true} {
			for _, tc := range opCases(8, signed, 8) {
				t.Run(fmt.Sprintf("%s/%s/%s", style, typeName(8, signed), tc.name), func(t *testing.T) {
					c := compileCase(t, tc, style)
					var vecs [][]uint64
					for a := uint64(0); a < 256; a++ {
						if tc.tb == "" {
							vecs = append(vecs, []uint64{a})
							continue
						}
						for b := uint64(0); b < 256; b++ {
							vecs = append(vecs, []uint64{a, b})
						}
					}
					checkCase(t, tc, c, vecs)
				})
			}
		}
	}
}

// TestOperatorsRandomWide checks every operator on 32- and 64-bit operands:
// edge values crossed with each other, plus random pairs.
func TestOperatorsRandomWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range []int{32, 64} {
		amountW := bits.Len(uint(w)) // covers in-range and too-large amounts
		m := mask(w)
		edges := []uint64{0, 1, 2, 3, m, m - 1, m >> 1, m>>1 + 1, m>>1 - 1, 0x5555555555555555 & m}
		for _, style := range styles {
			for _, signed := range []bool{false, true} {
				for _, tc := range opCases(w, signed, amountW) {
					t.Run(fmt.Sprintf("%s/%s/%s", style, typeName(w, signed), tc.name), func(t *testing.T) {
						c := compileCase(t, tc, style)
						bm := m
						if tc.tb != "" && tc.tb != tc.ta {
							bm = mask(amountW)
						}
						var vecs [][]uint64
						for _, a := range edges {
							for _, b := range edges {
								vecs = append(vecs, []uint64{a, b & bm})
							}
						}
						for range 2000 {
							vecs = append(vecs, []uint64{rng.Uint64() & m, rng.Uint64() & bm})
						}
						if tc.tb == "" {
							for i := range vecs {
								vecs[i] = vecs[i][:1]
							}
						}
						checkCase(t, tc, c, vecs)
					})
				}
			}
		}
	}
}
