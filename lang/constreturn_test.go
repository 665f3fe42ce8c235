package lang

import (
	"strings"
	"testing"
)

// TestReturnChosenAtCompileTime: a guard clause `if c { return x; }` whose
// condition is a compile-time constant at one call site (a constant
// argument, a const, a loop variable) returns on every path of that call,
// but the statements after it are not unreachable code: other calls reach
// them. They used to be reported as "unreachable code after return".
func TestReturnChosenAtCompileTime(t *testing.T) {
	c := compileOK(t, `
const SWAP = 0;
fn pick(x: u8, y: u8, first: bit) -> u8 {
    if first {
        return x;
    }
    return y;
}
fn maybe_swap(x: u8) -> u8 {
    if SWAP == 1 {
        return {x[3:0], x[7:4]};
    }
    return x;
}
fn low_byte(x: u8) -> u8 {
    for i in 0..2 {
        if i == 1 {
            return x ^ 0xff;
        }
    }
    return 0;
}
circuit c(a: u8, b: u8) -> (r: u8, s: u8, t: u8, u: u8) {
    r = pick(a, b, 1);
    s = pick(a, b, 0);
    t = maybe_swap(a) ^ low_byte(b);
    u = pick(a, b, a[0]);
}`)
	checkAll8(t, c, func(a, b uint64) []uint64 {
		u := b
		if a&1 == 1 {
			u = a
		}
		return []uint64{a, b, a ^ b ^ 0xff, u}
	})

	// Code after a return that every path takes whatever the values is
	// still an error, also when the return sits in a compile-time branch.
	for _, src := range []string{
		"fn f(x: u8) -> u8 { return x; x = 1; }\ncircuit c(a: u8) -> (r: u8) { r = f(a); }",
		"fn f(x: u8) -> u8 { if 1 == 1 { return x; x = 1; } return x; }\ncircuit c(a: u8) -> (r: u8) { r = f(a); }",
		"fn f(x: u8) -> u8 { if x[0] { return x; } else { return ~x; } x = 1; }\ncircuit c(a: u8) -> (r: u8) { r = f(a); }",
	} {
		_, err := Compile("bad.hdl", []byte(src), Options{})
		if err == nil || !strings.Contains(err.Error(), "unreachable code after return") {
			t.Errorf("%s\ngot %v, want unreachable code after return", src, err)
		}
	}
}
