package lang

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// malformed pins the exact diagnostics (message, source line, caret) for
// programs that must not compile.
var malformed = []struct {
	name, src, want string
}{
	{
		name: "syntax_missing_semicolon",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a
}`,
		want: `bad.hdl:3:1: syntax error: unexpected "}", expected ";"
}
^`,
	},
	{
		name: "syntax_bad_operand",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a + ;
}`,
		want: `bad.hdl:2:13: syntax error: unexpected ";", expected expression
    r = a + ;
            ^`,
	},
	{
		name: "syntax_bad_char",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a @ 1;
}`,
		want: `bad.hdl:2:11: syntax error: unexpected character "@"
    r = a @ 1;
          ^`,
	},
	{
		name: "syntax_eof",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a;
`,
		want: `bad.hdl:3:1: syntax error: unexpected end of file, expected "}"`,
	},
	{
		name: "syntax_param",
		src:  `fn f(a u8) -> u8 { return a; }`,
		want: `bad.hdl:1:8: syntax error: unexpected "u8", expected ":"
fn f(a u8) -> u8 { return a; }
       ^`,
	},
	{
		name: "syntax_toplevel",
		src:  `cont X = 3;`,
		want: `bad.hdl:1:1: syntax error: unexpected "cont", expected import, const, table, fn or circuit
cont X = 3;
^`,
	},
	{
		name: "syntax_else_without_block",
		src:  "circuit c(a: u8) -> (r: u8) {\n    if a[0] { r = a; } else r = 1;\n}",
		want: "bad.hdl:2:29: syntax error: unexpected \"r\", expected \"if\" or block\n    if a[0] { r = a; } else r = 1;\n                            ^",
	},
	{
		name: "syntax_keyword_as_name",
		src:  "circuit c(a: u8) -> (r: u8) {\n    let if = 3;\n    r = a;\n}",
		want: "bad.hdl:2:9: syntax error: unexpected \"if\", expected name\n    let if = 3;\n        ^",
	},
	{
		name: "syntax_string_operand",
		src:  "circuit c(a: u8) -> (r: u8) {\n    r = \"x\";\n}",
		want: "bad.hdl:2:9: syntax error: unexpected string \"x\", expected expression\n    r = \"x\";\n        ^",
	},
	{
		name: "syntax_chained_compare",
		src:  "circuit c(a: u8, b: u8) -> (r: bit) {\n    r = a < b < a;\n}",
		want: "bad.hdl:2:15: syntax error: unexpected \"<\", expected \";\"\n    r = a < b < a;\n              ^",
	},
	{
		name: "syntax_missing_arrow",
		src:  "fn f(a: u8) u8 {\n    return a;\n}",
		want: "bad.hdl:1:13: syntax error: unexpected \"u8\", expected \"->\"\nfn f(a: u8) u8 {\n            ^",
	},
	{
		name: "unknown_name",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a + q;
}`,
		want: `bad.hdl:2:13: undefined: q
    r = a + q;
            ^`,
	},
	{
		name: "unknown_type",
		src: `circuit c(a: u7x) -> (r: u8) {
    r = 0;
}`,
		want: `bad.hdl:1:14: unknown type u7x (types are bit, uN and sN with N in 1..1024, and arrays T[N])
circuit c(a: u7x) -> (r: u8) {
             ^`,
	},
	{
		name: "unknown_function",
		src: `circuit c(a: u8) -> (r: u8) {
    r = g(a);
}`,
		want: `bad.hdl:2:9: undefined function g
    r = g(a);
        ^`,
	},
	{
		name: "width_mismatch",
		src: `circuit c(a: u8, b: u9) -> (r: u8) {
    r = a + b;
}`,
		want: `bad.hdl:2:11: mismatched types u8 and u9 for +
    r = a + b;
          ^`,
	},
	{
		name: "assign_mismatch",
		src: `circuit c(a: u8) -> (r: u4) {
    r = a;
}`,
		want: `bad.hdl:2:9: cannot use u8 value as u4 in assignment to r
    r = a;
        ^`,
	},
	{
		name: "signed_unsigned_compare",
		src: `circuit c(a: u8, b: s8) -> (r: bit) {
    r = a < b;
}`,
		want: `bad.hdl:2:9: cannot compare u8 with s8: signedness differs (cast one side)
    r = a < b;
        ^`,
	},
	{
		name: "unassigned_output",
		src: `circuit c(a: u8) -> (r: u8, s: u8) {
    r = a;
}`,
		want: `bad.hdl:1:29: output s is never assigned
circuit c(a: u8) -> (r: u8, s: u8) {
                            ^`,
	},
	{
		name: "output_not_every_path",
		src: `circuit c(a: u8) -> (r: u8) {
    if a[0] {
        r = a;
    }
}`,
		want: `bad.hdl:1:22: output r is not assigned on every path
circuit c(a: u8) -> (r: u8) {
                     ^`,
	},
	{
		name: "nonconst_loop",
		src: `circuit c(a: u8) -> (r: u8) {
    r = 0;
    for i in 0..a {
        r = r + 1;
    }
}`,
		want: `bad.hdl:3:17: loop bound must be a compile-time constant
    for i in 0..a {
                ^`,
	},
	{
		name: "recursion",
		src: `fn f(x: u8) -> u8 { return g(x); }
fn g(x: u8) -> u8 { return f(x); }
circuit c(a: u8) -> (r: u8) {
    r = f(a);
}`,
		want: `bad.hdl:2:28: recursive call of f (f -> g -> f): functions are inlined, so recursion is not allowed
fn g(x: u8) -> u8 { return f(x); }
                           ^`,
	},
	{
		name: "constant_overflow",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a + 300;
}`,
		want: `bad.hdl:2:13: constant 300 overflows u8
    r = a + 300;
            ^`,
	},
	{
		name: "const_decl_overflow",
		src: `const X: u4 = 16;
circuit c(a: u8) -> (r: u8) {
    r = a;
}`,
		want: `bad.hdl:1:15: constant 16 overflows u4
const X: u4 = 16;
              ^`,
	},
	{
		name: "duplicate",
		src: `const X = 1;
fn X(a: u8) -> u8 { return a; }
circuit c(a: u8) -> (r: u8) {
    r = a;
}`,
		want: `bad.hdl:2:1: X redeclared (previous declaration at bad.hdl:1:1)
fn X(a: u8) -> u8 { return a; }
^`,
	},
	{
		name: "duplicate_param",
		src: `circuit c(a: u8, a: u8) -> (r: u8) {
    r = 0;
}`,
		want: `bad.hdl:1:18: a redeclared (previous declaration at bad.hdl:1:11)
circuit c(a: u8, a: u8) -> (r: u8) {
                 ^`,
	},
	{
		name: "bang_on_u8",
		src: `circuit c(a: u8) -> (r: u8) {
    r = !a;
}`,
		want: `bad.hdl:2:9: operator ! requires a bit, got u8 (use ~ for bitwise not)
    r = !a;
        ^`,
	},
	{
		name: "runtime_divisor",
		src: `circuit c(a: u8, b: u8) -> (r: u8) {
    r = a / b;
}`,
		want: `bad.hdl:2:13: divisor must be a compile-time constant (division by a runtime value is not supported)
    r = a / b;
            ^`,
	},
	{
		name: "div_zero",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a % 0;
}`,
		want: `bad.hdl:2:13: division by zero
    r = a % 0;
            ^`,
	},
	{
		name: "width_range",
		src: `circuit c(a: u2000) -> (r: u8) {
    r = 0;
}`,
		want: `bad.hdl:1:14: width 2000 of u2000 out of range 1..1024
circuit c(a: u2000) -> (r: u8) {
             ^`,
	},
	{
		// The parameter is declared all the same: no "undefined: a" or
		// "undefined: r" at its uses.
		name: "width_range_used",
		src: `circuit c(a: u2000, b: u8) -> (r: u8, q: u4000) {
    r = a[7:0] + b;
    q = 1;
}`,
		want: `bad.hdl:1:14: width 2000 of u2000 out of range 1..1024
circuit c(a: u2000, b: u8) -> (r: u8, q: u4000) {
             ^
bad.hdl:1:42: width 4000 of u4000 out of range 1..1024
circuit c(a: u2000, b: u8) -> (r: u8, q: u4000) {
                                         ^`,
	},
	{
		name: "index_range",
		src: `circuit c(v: u4[4]) -> (r: u4) {
    r = v[4];
}`,
		want: `bad.hdl:2:11: index 4 out of range for u4[4] (length 4)
    r = v[4];
          ^`,
	},
	{
		name: "slice_range",
		src: `circuit c(a: u8) -> (r: u4) {
    r = a[9:6];
}`,
		want: `bad.hdl:2:10: slice [9:6] out of range for u8 (need 7 >= hi >= lo >= 0)
    r = a[9:6];
         ^`,
	},
	{
		name: "assign_input",
		src: `circuit c(a: u8) -> (r: u8) {
    a = 1;
    r = a;
}`,
		want: `bad.hdl:2:5: cannot assign to input a
    a = 1;
    ^`,
	},
	{
		name: "used_before_assigned",
		src: `circuit c(a: u8) -> (r: u8) {
    let t: u8;
    r = t + a;
}`,
		want: `bad.hdl:3:9: t is used before it is assigned
    r = t + a;
        ^`,
	},
	{
		name: "missing_return",
		src: `fn f(x: u8) -> u8 {
    if x[0] {
        return x;
    }
}
circuit c(a: u8) -> (r: u8) {
    r = f(a);
}`,
		want: `bad.hdl:5:1: missing return at end of function f
}
^`,
	},
	{
		name: "several_errors",
		src: `circuit c(a: u8) -> (r: u8) {
    let x = a + y;
    let z: u4 = a;
    r = a + 256;
}`,
		want: `bad.hdl:2:17: undefined: y
    let x = a + y;
                ^
bad.hdl:3:17: cannot use u8 value as u4 in let z
    let z: u4 = a;
                ^
bad.hdl:4:13: constant 256 overflows u8
    r = a + 256;
            ^`,
	},
	{
		name: "several_circuits",
		src: `circuit c1(a: u8) -> (r: u8) { r = a; }
circuit c2(a: u8) -> (r: u8) { r = a; }`,
		want: `bad.hdl:1:1: several circuits declared (c1, c2): choose one
circuit c1(a: u8) -> (r: u8) { r = a; }
^`,
	},
	{
		name: "return_in_circuit",
		src: `circuit c(a: u8) -> (r: u8) {
    return a;
}`,
		want: `bad.hdl:1:22: output r is never assigned
circuit c(a: u8) -> (r: u8) {
                     ^
bad.hdl:2:5: return outside a function (circuits assign their outputs)
    return a;
    ^`,
	},
	{
		name: "cond_not_bit",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a ? 1 : 2;
}`,
		want: `bad.hdl:2:9: condition must be a bit, got u8 (compare it, e.g. x != 0)
    r = a ? 1 : 2;
        ^`,
	},
	{
		name: "unreachable",
		src: `fn f(x: u8) -> u8 {
    return x;
    x = 1;
}
circuit c(a: u8) -> (r: u8) {
    r = f(a);
}`,
		want: `bad.hdl:3:5: unreachable code after return
    x = 1;
    ^`,
	},
	{
		name: "shift_signed_amount",
		src: `circuit c(a: u8, b: s8) -> (r: u8) {
    r = a << b;
}`,
		want: `bad.hdl:2:14: shift amount must be unsigned, got s8
    r = a << b;
             ^`,
	},
	{
		name: "untyped_concat",
		src: `circuit c(a: u8) -> (r: u12) {
    r = {a, 3};
}`,
		want: `bad.hdl:2:13: untyped integer 3 in a concatenation has no width (cast it, e.g. 3 as u4)
    r = {a, 3};
            ^`,
	},
	{
		name: "arg_count",
		src: `fn f(x: u8) -> u8 { return x; }
circuit c(a: u8) -> (r: u8) {
    r = f(a, a);
}`,
		want: `bad.hdl:3:9: f takes 1 argument, got 2
    r = f(a, a);
        ^`,
	},
	{
		name: "loop_too_long",
		src: `circuit c(a: u8) -> (r: u8) {
    r = a;
    for i in 0..100000 { }
}`,
		want: `bad.hdl:3:5: loop of 100000 iterations exceeds the limit of 65536
    for i in 0..100000 { }
    ^`,
	},
	{
		name: "loop_count_overflow",
		src:  "circuit c(a: u8) -> (r: u8) {\n    r = a;\n    for i in -9223372036854775808..9223372036854775807 { }\n}",
		want: "bad.hdl:3:5: loop of 18446744073709551615 iterations exceeds the limit of 65536\n    for i in -9223372036854775808..9223372036854775807 { }\n    ^",
	},
	{
		name: "untyped_runtime_if",
		src: `circuit c(a: u8) -> (r: u8) {
    let n = 1;
    if a[0] { n = 2; }
    r = a;
}`,
		want: `bad.hdl:3:5: untyped variable n gets different values in the branches of a runtime if (declare it with a type)
    if a[0] { n = 2; }
    ^`,
	},
	{
		name: "const_cycle",
		src: `const A = B + 1;
const B = A;
circuit c(a: u8) -> (r: u8) {
    r = a;
}`,
		want: `bad.hdl:2:11: constant A refers to itself
const B = A;
          ^`,
	},
	{
		name: "unused_fn_error",
		src: `fn helper(x: u8) -> u8 { return x + y; }
circuit c(a: u8) -> (r: u8) {
    r = a;
}`,
		want: `bad.hdl:1:37: undefined: y
fn helper(x: u8) -> u8 { return x + y; }
                                    ^`,
	},
	{
		name: "bad_import",
		src: `import "nope.hdl";
circuit c(a: u8) -> (r: u8) { r = a; }`,
		want: `bad.hdl:1:1: cannot import "nope.hdl": open nope.hdl: no such file or directory
import "nope.hdl";
^`,
	},
}

func TestErrorMessages(t *testing.T) {
	for _, tc := range malformed {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile("bad.hdl", []byte(tc.src), Options{})
			if err == nil {
				t.Fatalf("compiled to %d nodes, want error:\n%s", len(c.Nodes), tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("error mismatch\ngot:\n%s\nwant:\n%s", got, tc.want)
			}
			var el ErrorList
			if !errors.As(err, &el) || len(el) == 0 {
				t.Fatalf("error is %T, want a non-empty ErrorList", err)
			}
		})
	}
}

func TestSeveralErrorsInPositionOrder(t *testing.T) {
	src := "circuit c(a: u8) -> (r: u8) {\n    r = a + 256;\n    let x = y;\n    let z: u4 = a;\n}"
	_, err := Compile("m.hdl", []byte(src), Options{})
	var el ErrorList
	if !errors.As(err, &el) {
		t.Fatalf("got %v, want ErrorList", err)
	}
	if len(el) != 3 {
		t.Fatalf("got %d errors, want 3:\n%v", len(el), err)
	}
	for i := 1; i < len(el); i++ {
		if el[i].Pos.Line <= el[i-1].Pos.Line {
			t.Errorf("errors out of order: %v before %v", el[i-1].Pos, el[i].Pos)
		}
	}
}

func TestImports(t *testing.T) {
	c, err := CompileFile("testdata/imports/main.hdl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []int64{0, 1, 85, 200, 255} {
		out := evalScalars(t, c, map[string]int64{"a": a})
		if want := (a*3 + 7) & 0xff; out["r"] != want {
			t.Errorf("main(%d) = %d, want %d", a, out["r"], want)
		}
	}
	_, err = CompileFile("testdata/imports/cycle_a.hdl", Options{})
	want := "testdata/imports/sub/cycle_c.hdl:1:1: import cycle: testdata/imports/cycle_a.hdl -> testdata/imports/cycle_b.hdl -> testdata/imports/sub/cycle_c.hdl -> testdata/imports/cycle_a.hdl\n" +
		"import \"../cycle_a.hdl\";\n^"
	if err == nil || err.Error() != want {
		t.Errorf("cycle: got\n%v\nwant\n%s", err, want)
	}
	_, err = Compile("x.hdl", []byte(`import "nope.hdl"; circuit c(a: u8) -> (r: u8) { r = a; }`), Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing import: got %v, want an error wrapping fs.ErrNotExist", err)
	}
	_, err = Compile("x.hdl", []byte(`import "stdlib/nope.hdl"; circuit c(a: u8) -> (r: u8) { r = a; }`), Options{})
	if err == nil || !strings.Contains(err.Error(), `cannot import "stdlib/nope.hdl": no such file in the standard library`) {
		t.Errorf("missing stdlib import: got %v", err)
	}
}

func TestCircuitSelection(t *testing.T) {
	src := []byte("circuit c1(a: u8) -> (r: u8) { r = a; }\ncircuit c2(a: u8) -> (r: u8) { r = ~a; }")
	names, err := CircuitNames("two.hdl", src)
	if err != nil || strings.Join(names, ",") != "c1,c2" {
		t.Fatalf("CircuitNames = %v, %v", names, err)
	}
	c, err := Compile("two.hdl", src, Options{Circuit: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	if out := evalScalars(t, c, map[string]int64{"a": 5}); out["r"] != 250 {
		t.Errorf("c2(5) = %d, want 250", out["r"])
	}
	_, err = Compile("two.hdl", src, Options{Circuit: "c3"})
	if err == nil || !strings.Contains(err.Error(), `no circuit named "c3" (circuits: c1, c2)`) {
		t.Errorf("unknown circuit: got %v", err)
	}
}

func TestSourcePositions(t *testing.T) {
	c, err := Compile("pos.hdl", []byte("circuit c(a: u8, b: u8) -> (r: u8) {\n    r = a + b;\n}"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range c.Nodes {
		if n.Op.IsGate() {
			if n.Pos != "pos.hdl:2:11" {
				t.Errorf("gate %v has position %q, want pos.hdl:2:11", n.Op, n.Pos)
			}
			found = true
		}
	}
	if !found {
		t.Fatal("no gates")
	}
}
