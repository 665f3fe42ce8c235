package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeHDL writes text to dir/name and returns the path.
func writeHDL(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const policyAdd = "circuit add(a: u8, b: u8) -> (s: u8) { s = a + b; }\n"

// TestInsecureNeedsFlag: a program file recording a Toy set does not
// turn on insecure keys: keygen --for, run and encrypt refuse without
// --insecure, naming the file (F18).
func TestInsecureNeedsFlag(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	ok := func(args ...string) {
		t.Helper()
		if got := runWorkflow(t, dir, args...); !strings.HasPrefix(got, "exit 0") {
			t.Fatalf("hcc %v:\n%s", args, got)
		}
	}
	refused := func(want string, args ...string) {
		t.Helper()
		got := runWorkflow(t, dir, args...)
		if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, want) || strings.Contains(got, "generated") {
			t.Errorf("hcc %v:\n%s\nwant a refusal containing %q", args, got, want)
		}
	}
	ok("compile", "--backend", "fhew", "--params", "ToySigned", "--insecure", "TMP/add.hdl", "-o", "TMP/toy.hcp")
	refused("TMP/toy.hcp records the insecure parameter set ToySigned", "keygen", "--for", "TMP/toy.hcp", "-o", "TMP/k")
	refused("TMP/toy.hcp records the insecure parameter set ToySigned", "run", "TMP/toy.hcp", "--in", "a=1", "--in", "b=2")
	ok("keygen", "--for", "TMP/toy.hcp", "--insecure", "-o", "TMP/k")
	refused("TMP/k/secret.key is a key of the insecure parameter set ToySigned", "encrypt", "--key", "TMP/k/secret.key", "TMP/toy.hcp", "--in", "a=1", "--in", "b=2", "-o", "TMP/in.ct")
	refused("TMP/k/secret.key is a key of the insecure parameter set ToySigned", "encrypt", "--key", "TMP/k/secret.key", "TMP/add.hdl", "--in", "a=1", "--in", "b=2", "-o", "TMP/in.ct")
	ok("encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/toy.hcp", "--in", "a=1", "--in", "b=2", "-o", "TMP/in.ct")
	ok("run", "--insecure", "TMP/toy.hcp", "--in", "a=1", "--in", "b=2")
}
