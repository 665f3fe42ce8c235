package lang

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

// FuzzCompile feeds arbitrary source to the whole front end (parser,
// imports, checker, lowering). It must never panic; a program that compiles
// must give a circuit that passes ir.Verify, and a failure must be an
// ErrorList of positioned diagnostics. Seeds: the tour example, every
// malformed program of the error table and the embedded stdlib files.
func FuzzCompile(f *testing.F) {
	if src, err := os.ReadFile("../examples/tour.hdl"); err == nil {
		f.Add(string(src))
	}
	for _, tc := range malformed {
		f.Add(tc.src)
	}
	entries, _ := fs.ReadDir(stdlib.FS, ".")
	for _, e := range entries {
		if src, err := fs.ReadFile(stdlib.FS, e.Name()); err == nil {
			f.Add(string(src))
		}
	}
	// Adversarial seeds: budget limits, deep nesting, wide types.
	for _, src := range []string{
		"circuit c(a: u1024, b: u1024) -> (r: u1024) { r = a * b; }",
		"circuit c(a: u8) -> (r: u8) { r = a; for i in 0..60000 { for j in 0..60000 { r = r + 1; } } }",
		"circuit c(a: u8) -> (r: u8) { r = " + strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300) + "; }",
		"circuit c(a: u8) -> (r: u8) { r = " + strings.Repeat("-", 300) + "a; }",
		"const X = 1 << 5000; circuit c(a: u8) -> (r: u8) { r = a + X; }",
		"circuit c(v: u8[4][2], i: u2, j: bit) -> (r: u8[2], s: u8) { r = v[i]; s = v[3][j]; }",
		"fn f(x: u8) -> u8 { if x[0] { return x; } return f(x); } circuit c(a: u8) -> (r: u8) { r = f(a); }",
	} {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// Small budgets keep every input fast; exceeding them is an error.
		opts := Options{maxNodes: 1 << 16, maxSteps: 1 << 14}
		names, err := CircuitNames("fuzz.hdl", []byte(src))
		if err != nil {
			checkErrorList(t, err)
			return
		}
		if len(names) > 0 {
			opts.Circuit = names[0]
		}
		c, err := Compile("fuzz.hdl", []byte(src), opts)
		if err != nil {
			checkErrorList(t, err)
			return
		}
		if err := ir.Verify(c); err != nil {
			t.Fatalf("compiled circuit fails Verify: %v", err)
		}
	})
}

func checkErrorList(t *testing.T, err error) {
	var el ErrorList
	if !errors.As(err, &el) || len(el) == 0 {
		t.Fatalf("error %T is not a non-empty ErrorList: %v", err, err)
	}
	for _, e := range el {
		if e.Pos.Line < 1 || e.Msg == "" || strings.Contains(e.Msg, "internal error") {
			t.Fatalf("bad diagnostic %q at %v", e.Msg, e.Pos)
		}
	}
}
