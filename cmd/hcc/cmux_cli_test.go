package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCMuxWorkflow runs the CLI workflow on ToySignedCMux, the insecure set
// with the shared-select CMux gadget, on a mux-heavy circuit: compile (the
// summary names the SEL and CMUX nodes), keygen, encrypt, eval, decrypt
// (right values for both selects), the program refused with keys of the
// plain ToySigned, and a damaged evaluation key refused with its path.
func TestCMuxWorkflow(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "max.hdl")
	if err := os.WriteFile(src, []byte(`circuit mx(a: u8, b: u8) -> (m: u8, lt: bit) { lt = a < b; m = a < b ? b : a; }`), 0o644); err != nil {
		t.Fatal(err)
	}
	hcp, keys, plain := filepath.Join(dir, "mx.hcp"), filepath.Join(dir, "k"), filepath.Join(dir, "kp")
	ok := func(args ...string) string {
		t.Helper()
		out := runHCC(t, args...)
		if !strings.HasPrefix(out, "exit 0") {
			t.Fatalf("hcc %v:\n%s", args, out)
		}
		return out
	}
	fails := func(want string, args ...string) {
		t.Helper()
		out := runHCC(t, args...)
		if strings.HasPrefix(out, "exit 0") || !strings.Contains(out, want) {
			t.Errorf("hcc %v: want a failure naming %q, got\n%s", args, want, out)
		}
	}
	if out := ok("compile", src, "--backend", "fhew", "--params", "ToySignedCMux", "--insecure", "-v", "-o", hcp); !strings.Contains(out, " SEL, ") || !strings.Contains(out, " CMUX)") {
		t.Errorf("compile -v does not name the SEL/CMUX nodes:\n%s", out)
	}
	ok("keygen", "--for", hcp, "--insecure", "-o", keys)
	if st, err := os.Stat(filepath.Join(keys, "secret.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("secret key mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	fails("--force", "keygen", "--for", hcp, "--insecure", "-o", keys)
	for _, c := range []struct{ a, b, m, lt string }{{"200", "7", "200", "0"}, {"7", "200", "200", "1"}, {"9", "9", "9", "0"}} {
		in, out := filepath.Join(dir, "in.ct"), filepath.Join(dir, "out.ct")
		ok("encrypt", hcp, "--key", filepath.Join(keys, "secret.key"), "--insecure", "--in", "a="+c.a, "--in", "b="+c.b, "-o", in)
		ok("eval", hcp, in, "--eval-key", filepath.Join(keys, "eval.key"), "-o", out)
		got := ok("decrypt", hcp, out, "--key", filepath.Join(keys, "secret.key"))
		if !strings.Contains(got, "m = "+c.m+" ") || !strings.Contains(got, "lt = "+c.lt+" ") {
			t.Errorf("a=%s b=%s: decrypted\n%s\nwant m = %s, lt = %s", c.a, c.b, got, c.m, c.lt)
		}
	}
	ok("keygen", "--params", "ToySigned", "--insecure", "-o", plain)
	fails("needs fhew/ToySignedCMux", "eval", hcp, filepath.Join(dir, "in.ct"), "--eval-key", filepath.Join(plain, "eval.key"), "-o", filepath.Join(dir, "x.ct"))
	ek := filepath.Join(keys, "eval.key")
	data, err := os.ReadFile(ek)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	bad := filepath.Join(dir, "bad.key")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fails(bad, "eval", hcp, filepath.Join(dir, "in.ct"), "--eval-key", bad, "-o", filepath.Join(dir, "y.ct"))
	if _, err := os.Stat(filepath.Join(dir, "y.ct")); err == nil {
		t.Error("a failed eval wrote its output file")
	}
}
