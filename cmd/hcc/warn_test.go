package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInsecureWarning: every command that makes keys, encrypts or
// evaluates under an insecure toy set prints "warning: parameter set X is
// insecure (test only)" on stderr, exactly once (run does all three);
// decrypt and compile, which do none of that, print nothing.
func TestInsecureWarning(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "c.hdl")
	if err := os.WriteFile(src, []byte("circuit c(a: u4, b: u4) -> (y: u4) { y = a & b; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const warning = "warning: parameter set ToySigned is insecure (test only)\n"
	for _, tc := range []struct {
		args  []string
		warns int
	}{
		{[]string{"keygen", "--params", "ToySigned", "--insecure", "-o", "TMP/keys"}, 1},
		{[]string{"compile", "--backend", "fhew", "--params", "ToySigned", "--insecure", "TMP/c.hdl", "-o", "TMP/c.hcp"}, 0},
		{[]string{"encrypt", "--key", "TMP/keys/secret.key", "--insecure", "TMP/c.hcp", "--in", "a=3", "--in", "b=6", "-o", "TMP/in.ct"}, 1},
		{[]string{"eval", "--eval-key", "TMP/keys/eval.key", "TMP/c.hcp", "TMP/in.ct", "-o", "TMP/out.ct"}, 1},
		{[]string{"decrypt", "--key", "TMP/keys/secret.key", "TMP/c.hcp", "TMP/out.ct"}, 0},
		{[]string{"run", "--params", "ToySigned", "--insecure", "TMP/c.hdl", "--in", "a=3", "--in", "b=6", "--check"}, 1},
	} {
		got := runWorkflow(t, dir, tc.args...)
		if !strings.HasPrefix(got, "exit 0\n") {
			t.Fatalf("hcc %s:\n%s", tc.args[0], got)
		}
		_, stderr, _ := strings.Cut(got, "-- stderr --\n")
		if n := strings.Count(stderr, warning); n != tc.warns {
			t.Errorf("hcc %s: %d insecure warnings, want %d:\n%s", tc.args[0], n, tc.warns, stderr)
		}
		if tc.args[0] == "decrypt" && !strings.Contains(got, "y = 2 (0x2)") {
			t.Errorf("decrypt:\n%s", got)
		}
	}
}

// fakeKey is a key's security as warnInsecure sees it.
type fakeKey bool

func (k fakeKey) Insecure() bool { return bool(k) }
func (k fakeKey) Params() string { return "SET" }

// TestWarnInsecureOnce: a secure set prints nothing; an insecure one the
// line once, however often the command meets a key of it.
func TestWarnInsecureOnce(t *testing.T) {
	var stderr bytes.Buffer
	e := &cmdEnv{stderr: &stderr}
	e.warnInsecure(fakeKey(false))
	if stderr.Len() != 0 {
		t.Fatalf("secure set: %q", stderr.String())
	}
	e.warnInsecure(fakeKey(true))
	e.warnInsecure(fakeKey(true))
	if got := stderr.String(); got != "warning: parameter set SET is insecure (test only)\n" {
		t.Fatalf("insecure set twice: %q", got)
	}
}
