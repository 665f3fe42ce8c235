package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestParamsAutoWideNoTables: a XOR-only circuit has no tables on a
// wide-table set, but its outputs still decrypt with a (tiny) failure
// probability, so when auto chooses such a set its line must say so, not
// "nothing can fail" (what a gate set without bootstraps rightly says).
func TestParamsAutoWideNoTables(t *testing.T) {
	src := filepath.Join(t.TempDir(), "px.hdl")
	if err := os.WriteFile(src, []byte("circuit px(a: u8, b: u8) -> (y: u8) { y = a ^ b; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runHCC(t, "compile", src, "--backend", "fhew", "--params", "auto")
	m := regexp.MustCompile(`(?m)^params auto: chose (\S+), (.*)$`).FindStringSubmatch(out)
	if !strings.HasPrefix(out, "exit 0\n") || m == nil {
		t.Fatalf("compile --params auto:\n%s", out)
	}
	if !strings.HasPrefix(m[1], "STD128_CBS") {
		t.Skipf("auto chose the gate set %s for a XOR-only circuit; nothing to check", m[1])
	}
	if !regexp.MustCompile(`^0 circuit bootstraps, predicted failure 2\^-[0-9.]+ per run \(target 2\^-40\)$`).MatchString(m[2]) {
		t.Errorf("choice line %q, want 0 circuit bootstraps and the predicted failure:\n%s", m[0], out)
	}
}

// TestProgressLineWide: on a terminal, eval's progress line on a
// wide-table set counts circuit bootstraps under that name (Stats names
// non-linear gates there), and is ended before the statistics line, which
// used to follow its last draw on the same line.
func TestProgressLineWide(t *testing.T) {
	defer func(f func(io.Writer) io.Writer) { progressTo = f }(progressTo)
	progressTo = func(w io.Writer) io.Writer { return w } // stderr as if a terminal
	out := runHCC(t, "run", "../../examples/tour.hdl", "--params", "ToyCBS", "--insecure",
		"--in", "a=200", "--in", "b=100", "--in", "x=-5", "--in", "v=1,2,3,4")
	m := regexp.MustCompile(`\r(\d+)/(\d+) circuit bootstraps \(100%\)[^\r\n]*\n(evaluated: (\d+) circuit bootstraps)`).FindStringSubmatch(out)
	if !strings.HasPrefix(out, "exit 0\n") || m == nil || m[1] != m[2] || m[2] != m[4] {
		t.Errorf("want the final progress line N/N circuit bootstraps, ended, then evaluated: N circuit bootstraps:\n%q", out)
	}
}
