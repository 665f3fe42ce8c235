package lang

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// compileOK compiles src (both styles give the same function, so the
// default is enough for statement semantics).
func compileOK(t *testing.T, src string) *ir.Circuit {
	t.Helper()
	c, err := Compile(t.Name()+".hdl", []byte(src), Options{})
	if err != nil {
		t.Fatalf("%s\n%v", src, err)
	}
	return c
}

// checkAll8 evaluates a circuit of inputs a: u8 and b: u8 (or just a) on
// every input and compares each output with the model.
func checkAll8(t *testing.T, c *ir.Circuit, model func(a, b uint64) []uint64) {
	t.Helper()
	var vecs [][]uint64
	for a := uint64(0); a < 256; a++ {
		if len(c.Inputs) == 1 {
			vecs = append(vecs, []uint64{a})
			continue
		}
		for b := uint64(0); b < 256; b++ {
			vecs = append(vecs, []uint64{a, b})
		}
	}
	got := evalPatterns(c, vecs)
	for i, v := range vecs {
		b := uint64(0)
		if len(v) > 1 {
			b = v[1]
		}
		want := model(v[0], b)
		for k := range want {
			if w := want[k] & mask(c.Outputs[k].Width*c.Outputs[k].Elems()); got[i][k] != w {
				t.Fatalf("a=%d b=%d: output %s = %#x, want %#x", v[0], b, c.Outputs[k].Name, got[i][k], w)
			}
		}
	}
}

func TestRuntimeIfMerges(t *testing.T) {
	c := compileOK(t, `
circuit c(a: u8, b: u8) -> (r: u8, s: u8) {
    let t: u8 = a;
    if a < b {
        t = b - a;
        s = 1;
    } else if a == b {
        s = 2;
    } else {
        let t: u8 = 99;   // shadows: the outer t keeps a
        s = t;
    }
    r = t;
}`)
	checkAll8(t, c, func(a, b uint64) []uint64 {
		switch {
		case a < b:
			return []uint64{b - a, 1}
		case a == b:
			return []uint64{a, 2}
		}
		return []uint64{a, 99}
	})
}

func TestCompileTimeIfTakesOneBranch(t *testing.T) {
	// The untaken branch indexes out of range: it must not be elaborated.
	c := compileOK(t, `
const WIDE = 0;
circuit c(a: u8) -> (r: u8) {
    if WIDE == 1 {
        r = a[9:2];
    } else {
        r = WIDE == 0 ? a : a[9:2];
    }
}`)
	checkAll8(t, c, func(a, b uint64) []uint64 { return []uint64{a} })
}

func TestPredicatedReturn(t *testing.T) {
	c := compileOK(t, `
fn clamp(x: u8, lo: u8, hi: u8) -> u8 {
    if x < lo {
        return lo;
    }
    if x > hi {
        return hi;
    }
    return x;
}
fn sign(x: s8) -> s8 {
    if x < 0 { return -1; } else if x == 0 { return 0; } else { return 1; }
}
circuit c(a: u8, b: u8) -> (r: u8, s: s8) {
    r = clamp(a, 10, b);
    s = sign(b as s8);
}`)
	checkAll8(t, c, func(a, b uint64) []uint64 {
		r := a
		if a < 10 {
			r = 10
		} else if a > b {
			r = b
		}
		s := uint64(0)
		if int8(b) < 0 {
			s = 0xff
		} else if b != 0 {
			s = 1
		}
		return []uint64{r, s}
	})
}

func TestArrays(t *testing.T) {
	c := compileOK(t, `
table T: u4[2][3] = [[1, 2, 3], [4, 5, 6]];
circuit c(a: u8, b: u8) -> (r: u8[4], s: u4, e: bit) {
    let v: u8[4];
    for i in 0..4 {
        v[i] = a + i;            // constant-index writes assign every element
    }
    v[b[1:0]] = b;               // runtime-index write
    r = v;                       // array output
    s = T[b[2]][b[4:3]];         // nested table, runtime indices (b[4:3] = 3 reads 0)
    e = [a, b] == [b, a];        // array equality
}`)
	tbl := [2][3]uint64{{1, 2, 3}, {4, 5, 6}}
	checkAll8(t, c, func(a, b uint64) []uint64 {
		var v [4]uint64
		for i := range v {
			v[i] = (a + uint64(i)) & 0xff
		}
		v[b&3] = b
		r := v[0] | v[1]<<8 | v[2]<<16 | v[3]<<24
		s := uint64(0)
		if j := b >> 3 & 3; j < 3 {
			s = tbl[b>>2&1][j]
		}
		return []uint64{r, s, b2u(a == b)}
	})
}

func TestArrayInputs(t *testing.T) {
	c := compileOK(t, `
circuit c(m: s4[2][3], i: u2) -> (row: s4[3], sum: s8) {
    row = m[1];
    sum = 0;
    for r in 0..2 {
        for k in 0..3 {
            sum = sum + (m[r][k] as s8);
        }
    }
    if i != 3 {
        sum = sum + (m[0][i] as s8);
    }
}`)
	if got := c.Inputs[0].Dims; fmt.Sprint(got) != "[2 3]" {
		t.Fatalf("input dims %v, want [2 3]", got)
	}
	vals := make([]*big.Int, 6)
	for k := range vals {
		vals[k] = big.NewInt(int64(k) - 3) // -3..2
	}
	out, err := c.Eval(ir.Values{"m": vals, "i": {big.NewInt(2)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(out["row"], out["sum"]); got != "[0 1 2] [-4]" {
		t.Errorf("got %s, want [0 1 2] [-4]", got)
	}
}

func TestCompileTimeVariablesAndLiterals(t *testing.T) {
	c := compileOK(t, `
const MASK: u8 = 0b1010_0101;
const BASE = 0x10 + 2 * 3;        // 22
fn pow2(n: u8) -> u8 {
    let p = 1;                     // untyped compile-time variable
    for i in 0..3 { p = p * 2; }
    return n * p;
}
circuit c(a: u8) -> (r: u8, s: u8, t: u8) {
    r = (a ^ MASK) + BASE;
    s = pow2(a);
    t = -1 as u8 == 255 ? a >> 1 : 0;
}`)
	checkAll8(t, c, func(a, b uint64) []uint64 { return []uint64{(a ^ 0xa5) + 22, a * 8, a >> 1} })
}

func TestReturnInsideLoop(t *testing.T) {
	c := compileOK(t, `
// lowest set bit index, 8 when a == 0: an early return inside an unrolled loop
fn ctz(x: u8) -> u4 {
    for i in 0..8 {
        if x[i] {
            return i;
        }
    }
    return 8;
}
fn rev(v: u8[4]) -> u8[4] {
    let out: u8[4];
    for i in 0..4 { out[3 - i] = v[i]; }
    return out;
}
circuit c(a: u8, b: u8) -> (r: u4, s: u8[4]) {
    r = ctz(a);
    s = rev([a, b, a & b, a | b]);
}`)
	checkAll8(t, c, func(a, b uint64) []uint64 {
		r := uint64(bits8TrailingZeros(a))
		return []uint64{r, (a | b) | (a&b)<<8 | b<<16 | a<<24}
	})
}

func bits8TrailingZeros(a uint64) int {
	for i := range 8 {
		if a>>i&1 == 1 {
			return i
		}
	}
	return 8
}
