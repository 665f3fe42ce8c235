package lang

import "testing"

// TestNoConsequentialErrors: a mistake is reported once, by the error that
// names it, without the errors that follow from it (an output the failed
// statement was meant to assign "never assigned", an assignment to a
// redeclared output "cannot assign to input", a loop's limit once per
// iteration of an outer loop, a return in a failed loop "missing return").
// The messages are compared whole.
func TestNoConsequentialErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"loop bound undefined",
			"circuit c(a: u8) -> (y: u8) {\n  for i in 0..x { y = a; }\n}\n",
			"e.hdl:2:15: undefined: x\n  for i in 0..x { y = a; }\n              ^"},
		{"loop too long",
			"circuit c(a: u8) -> (y: u8) {\n  for i in 0..100000 { y = a; }\n}\n",
			"e.hdl:2:3: loop of 100000 iterations exceeds the limit of 65536\n  for i in 0..100000 { y = a; }\n  ^"},
		{"loop too long, nested",
			"circuit c(a: u8) -> (y: u8) {\n  for i in 1..4 {\n    for j in 0..i*100000 { y = a; }\n  }\n}\n",
			"e.hdl:3:5: loop of 100000 iterations exceeds the limit of 65536\n    for j in 0..i*100000 { y = a; }\n    ^"},
		{"failed loop indexes with its variable",
			"circuit c(a: u8) -> (y: u8[4]) {\n  for i in 0..n { y[i] = a; }\n}\n",
			"e.hdl:2:15: undefined: n\n  for i in 0..n { y[i] = a; }\n              ^"},
		{"failed loop assigns a let",
			"circuit c(a: u8) -> (y: u8) {\n  let t: u8;\n  for i in 0..x { t = a; }\n  y = t;\n}\n",
			"e.hdl:3:15: undefined: x\n  for i in 0..x { t = a; }\n              ^"},
		{"failed loop body still checked",
			"circuit c(a: u8) -> (y: u8) {\n  for i in 0..x { y = q; }\n}\n",
			"e.hdl:2:15: undefined: x\n  for i in 0..x { y = q; }\n              ^\n" +
				"e.hdl:2:23: undefined: q\n  for i in 0..x { y = q; }\n                      ^"},
		{"return in a failed loop",
			"fn f(x: u8) -> u8 {\n  for i in 0..x { return x; }\n}\ncircuit c(a: u8) -> (y: u8) { y = f(a); }\n",
			"e.hdl:2:15: loop bound must be a compile-time constant\n  for i in 0..x { return x; }\n              ^"},
		{"output named like an input",
			"circuit c(a: u8) -> (a: u8) {\n  a = a;\n}\n",
			"e.hdl:1:22: a redeclared (previous declaration at e.hdl:1:11)\ncircuit c(a: u8) -> (a: u8) {\n                     ^"},
		{"index out of range",
			"circuit c(a: u8) -> (y: u8[4]) {\n  y[7] = a;\n}\n",
			"e.hdl:2:5: index 7 out of range for u8[4] (length 4)\n  y[7] = a;\n    ^"},
		{"runtime index before assigned",
			"circuit c(a: u8, s: u2) -> (y: u8[4]) {\n  y[s] = a;\n}\n",
			"e.hdl:2:3: y is assigned with a runtime index before all its elements are assigned\n  y[s] = a;\n  ^"},
		{"index of a scalar",
			"circuit c(a: u8) -> (y: u8) {\n  y[0] = a;\n}\n",
			"e.hdl:2:5: cannot assign to an index of y (u8): only array elements are assignable; build the value with {...} instead\n  y[0] = a;\n    ^"},
		// Two independent mistakes are both reported, in source order.
		{"two real errors",
			"circuit c(a: u8) -> (y: u8, z: u8) {\n  y = zz;\n}\n",
			"e.hdl:1:29: output z is never assigned\ncircuit c(a: u8) -> (y: u8, z: u8) {\n                            ^\n" +
				"e.hdl:2:7: undefined: zz\n  y = zz;\n      ^"},
		// Two inputs of one name: assigning the name is a mistake of its own.
		{"input twice",
			"circuit c(a: u8, a: u8) -> (y: u8) {\n  a = 1;\n  y = a;\n}\n",
			"e.hdl:1:18: a redeclared (previous declaration at e.hdl:1:11)\ncircuit c(a: u8, a: u8) -> (y: u8) {\n                 ^\n" +
				"e.hdl:2:3: cannot assign to input a\n  a = 1;\n  ^"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile("e.hdl", []byte(tc.src), Options{})
			if err == nil {
				t.Fatalf("compiled; want\n%s", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", err, tc.want)
			}
		})
	}
}
