package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
)

// chosenRe finds the set --params auto chose in its last stderr line.
var chosenRe = regexp.MustCompile(`(?m)^params auto: chose (\S+), \d+ (?:circuit )?bootstraps, predicted failure 2\^-[0-9.]+ per run \(target 2\^-40\)$`)

// TestParamsAuto: compile --params auto prints one line per 128-bit set and
// the chosen set with its predicted failure, and writes a program for that
// set (never "auto"); run of the program (and of the source, with
// --insecure, which changes nothing) decrypts the plaintext outputs at the
// chosen 128-bit set; keygen --for takes the chosen set; auto is refused
// where no circuit is compiled and on bgv; help and the unknown-set error
// mention it; an S-box chooses a wide-table set and runs encrypted on it.
func TestParamsAuto(t *testing.T) {
	dir := t.TempDir()
	hcp := filepath.Join(dir, "maj3.hcp")
	out := runHCC(t, "compile", "testdata/small.hdl", "-circuit", "maj3", "--backend", "fhew", "--params", "auto", "-o", hcp)
	m := chosenRe.FindStringSubmatch(out)
	if !strings.HasPrefix(out, "exit 0\n") || m == nil {
		t.Fatalf("compile --params auto:\n%s", out)
	}
	set := m[1]
	if !slices.Contains(fhew.SecureNames(), set) {
		t.Fatalf("chose %s, not a 128-bit set", set)
	}
	for _, name := range fhew.SecureNames() {
		if n := strings.Count(out, "\nparams auto: "+name+": "); n != 1 {
			t.Errorf("%d lines for candidate %s:\n%s", n, name, out)
		}
	}
	if !strings.Contains(out, "for fhew/"+set+")") {
		t.Errorf("the program is not written for %s:\n%s", set, out)
	}

	ins := []string{"--in", "a=1", "--in", "b=0", "--in", "c=1", "--check"}
	out = runHCC(t, append([]string{"run", hcp, "--params", "auto"}, ins...)...)
	if !strings.HasPrefix(out, "exit 0\n") || !strings.Contains(out, "m = 1") || !strings.Contains(out, "keygen "+set+" ") || !strings.Contains(out, "check: all 1 output bits match") {
		t.Errorf("run PROGRAM --params auto:\n%s", out)
	}
	out = runHCC(t, append([]string{"run", "testdata/small.hdl", "-circuit", "maj3", "--params", "auto", "--insecure"}, ins...)...)
	if m := chosenRe.FindStringSubmatch(out); m == nil || m[1] != set || !strings.Contains(out, "m = 1") || !strings.Contains(out, "check: all 1 output bits match") {
		t.Errorf("run SOURCE --params auto --insecure (want %s again):\n%s", set, out)
	}
	if out := runHCC(t, "keygen", "--for", hcp, "-o", filepath.Join(dir, "keys")); !strings.Contains(out, "("+set+", fhew backend)") {
		t.Errorf("keygen --for an auto program:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"keygen", "--params", "auto", "-o", filepath.Join(dir, "k")}, "chosen per circuit"},
		{[]string{"compile", "testdata/small.hdl", "-circuit", "maj3", "--backend", "bgv", "--params", "auto"}, "fhew's per-circuit choice"},
		{[]string{"compile", "testdata/small.hdl", "-circuit", "maj3", "--backend", "fhew", "--params", "STD256"}, "also take auto"},
	} {
		if out := runHCC(t, c.args...); !strings.HasPrefix(out, "exit 1\n") || !strings.Contains(out, c.want) {
			t.Errorf("hcc %v: want exit 1 and %q:\n%s", c.args, c.want, out)
		}
	}
	// A single S-box is one wide table: auto takes a wide-table set.
	sb := filepath.Join(dir, "sb.hdl")
	if err := os.WriteFile(sb, []byte("import \"stdlib/sbox.hdl\";\ncircuit sb(x: u8) -> (y: u8) {\n    y = sbox(x);\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = runHCC(t, "compile", sb, "--backend", "fhew", "--params", "auto", "-o", filepath.Join(dir, "sb.hcp"))
	if m := chosenRe.FindStringSubmatch(out); m == nil || !strings.HasPrefix(m[1], "STD128_CBS") || !strings.Contains(m[0], "circuit bootstraps") || !strings.Contains(out, "for fhew/"+m[1]+")") {
		t.Errorf("compile sbox --params auto (want a wide-table set):\n%s", out)
	}
	// Encrypted on the wide-table set (FIPS-197's S-box example, 0x53 -> 0xed).
	out = runHCC(t, "run", filepath.Join(dir, "sb.hcp"), "--params", "auto", "--in", "x=0x53", "--check")
	if !strings.HasPrefix(out, "exit 0\n") || !strings.Contains(out, "y = 237 (0xed)") || !strings.Contains(out, "keygen STD128_CBS") {
		t.Errorf("run sb.hcp --params auto:\n%s", out)
	}
	for _, cmd := range []string{"compile", "run"} {
		if out := runHCC(t, cmd, "--help"); !strings.Contains(out, "or auto (compile and run: ") {
			t.Errorf("%s --help does not mention auto:\n%s", cmd, out)
		}
	}
}
