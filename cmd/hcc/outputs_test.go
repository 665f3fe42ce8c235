package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsKeepKeysAndInputs: encrypt -o onto the secret key and eval -o
// onto its own input are refused before any work, naming the path, and
// leave both files as they were.
func TestOutputsKeepKeysAndInputs(t *testing.T) {
	dir := t.TempDir()
	toy := []string{"--params", "ToySigned", "--insecure"}
	if got := runWorkflow(t, dir, append([]string{"keygen", "-o", "TMP/keys"}, toy...)...); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	hdl := writeHDL(t, dir, "add.hdl", "circuit add(a: u8, b: u8) -> (s: u8) { s = a + b; }")
	secret := filepath.Join(dir, "keys", "secret.key")
	key, _ := os.ReadFile(secret)
	got := runWorkflow(t, dir, "encrypt", "--key", "TMP/keys/secret.key", hdl, "--in", "a=1", "--in", "b=2", "--insecure", "-o", "TMP/keys/secret.key")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "TMP/keys/secret.key") || !strings.Contains(got, "secret key") {
		t.Errorf("encrypt -o secret.key:\n%s", got)
	}
	if after, _ := os.ReadFile(secret); string(after) != string(key) {
		t.Fatal("secret.key replaced")
	}
	if got := runWorkflow(t, dir, "encrypt", "--key", "TMP/keys/secret.key", hdl, "--in", "a=1", "--in", "b=2", "--insecure", "-o", "TMP/in.ct"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	in, _ := os.ReadFile(filepath.Join(dir, "in.ct"))
	got = runWorkflow(t, dir, "eval", "--eval-key", "TMP/keys/eval.key", hdl, "TMP/in.ct", "-o", "TMP/in.ct")
	if want := "hcc: eval: TMP/in.ct is both an input and the output"; !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, want) || strings.Contains(got, "evaluated") {
		t.Errorf("eval -o onto its input:\n%s\nwant %q", got, want)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "in.ct")); string(after) != string(in) {
		t.Fatal("in.ct replaced")
	}
	got = runWorkflow(t, dir, "decrypt", "--key", "TMP/keys/secret.key", "TMP/in.ct", "-o", "TMP/in.ct")
	if want := "hcc: decrypt: TMP/in.ct is both an input and the output"; !strings.Contains(got, want) {
		t.Errorf("decrypt -o onto its input:\n%s\nwant %q", got, want)
	}
	got = runWorkflow(t, dir, "eval", "--eval-key", "TMP/keys/eval.key", hdl, "TMP/in.ct", "-o", "TMP/keys/eval.key")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "evaluation key") {
		t.Errorf("eval -o eval.key:\n%s", got)
	}
}

// TestOutputsKeepSource: compile and the export commands refuse an -o that
// is the circuit file they read, and leave it as it was.
func TestOutputsKeepSource(t *testing.T) {
	dir := t.TempDir()
	hdl := writeHDL(t, dir, "add.hdl", "circuit add(a: u8, b: u8) -> (s: u8) { s = a + b; }")
	src, _ := os.ReadFile(hdl)
	for _, cmd := range []string{"compile", "export-bristol", "export-blif", "dot"} {
		got := runWorkflow(t, dir, cmd, hdl, "-o", hdl)
		if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "is both an input and the output") {
			t.Errorf("%s -o onto its source:\n%s", cmd, got)
		}
		if after, _ := os.ReadFile(hdl); string(after) != string(src) {
			t.Fatalf("%s replaced the source file", cmd)
		}
	}
}
