package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFHEWWorkflowBinary runs the built hcc through keygen, encrypt, eval
// and decrypt as separate processes (the client and server roles), and run
// --check, on the tour example at ToySigned: decrypt and run print exactly
// what hcc sim prints, and a damaged ciphertext exits 1 with one line.
func TestFHEWWorkflowBinary(t *testing.T) {
	bin := buildHCC(t)
	dir := t.TempDir()
	tour := "../examples/tour.hdl"
	ins := []string{"--in", "a=200", "--in", "b=100", "--in", "x=-5", "--in", "v=1,2,3,4"}
	hcc := binRunner(t, bin)
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := hcc(args...)
		if code != 0 {
			t.Fatalf("hcc %v: exit %d\n%s", args, code, errs)
		}
		return out
	}
	sim := must(append([]string{"sim", tour}, ins...)...)
	keys := filepath.Join(dir, "keys")
	must("keygen", "--params", "ToySigned", "--insecure", "-o", keys)
	if st, err := os.Stat(filepath.Join(keys, "secret.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret.key: %v (want mode 0600)", err)
	}
	in, out := filepath.Join(dir, "in.ct"), filepath.Join(dir, "out.ct")
	must(append([]string{"encrypt", "--insecure", "--key", filepath.Join(keys, "secret.key"), tour, "-o", in}, ins...)...)
	// The server side: a directory holding only the evaluation key.
	server := filepath.Join(dir, "server")
	if err := os.Mkdir(server, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(keys, "eval.key"), filepath.Join(server, "eval.key")); err != nil {
		t.Fatal(err)
	}
	must("eval", "--eval-key", filepath.Join(server, "eval.key"), tour, in, "-o", out, "--threads", "2")
	if got := must("decrypt", "--key", filepath.Join(keys, "secret.key"), tour, out); got != sim {
		t.Errorf("decrypt printed\n%s\nhcc sim printed\n%s", got, sim)
	}
	if got := must(append([]string{"run", tour, "--params", "ToySigned", "--insecure", "--check"}, ins...)...); got != sim {
		t.Errorf("run printed\n%s\nhcc sim printed\n%s", got, sim)
	}

	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-40] ^= 0xff
	bad := filepath.Join(dir, "bad.ct")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := hcc("decrypt", "--key", filepath.Join(keys, "secret.key"), tour, bad)
	if want := "hcc: decrypt: " + bad + " is corrupted or truncated (checksum mismatch)\n"; code != 1 || errs != want {
		t.Errorf("damaged ciphertext: exit %d, stderr %q; want exit 1, %q", code, errs, want)
	}
}
