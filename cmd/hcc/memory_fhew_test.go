package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryFHEW: run and eval on an FHEW gate set print the estimate
// before keygen and refuse a batch above the memory available (naming the
// figure, fewer instances per batch and --force) unless --force; a small
// run on this machine's real memory is not refused.
func TestMemoryFHEW(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	if err := os.WriteFile(filepath.Join(dir, "b.batch"), []byte("a=1 b=2\na=3 b=4\na=250 b=9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	saved := memAvailable
	defer func() { memAvailable = saved }()
	fhewRun := []string{"run", "--params", "ToySigned", "--insecure", "TMP/add.hdl", "--batch", "TMP/b.batch"}

	got := runWorkflow(t, dir, fhewRun...)
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "memory: about") || !strings.Contains(got, "live ciphertexts") {
		t.Errorf("small fhew run on the real memory:\n%s", got)
	}
	memAvailable = func() (int64, bool) { return 1 << 20, true }
	got = runWorkflow(t, dir, fhewRun...)
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "memory: about") || !strings.Contains(got, "more than the 1.0 MB available") ||
		!strings.Contains(got, "fewer instances in each batch") || !strings.Contains(got, "--force") || strings.Contains(got, "keygen") {
		t.Errorf("fhew run over the memory available:\n%s", got)
	}
	got = runWorkflow(t, dir, append(fhewRun, "--force")...)
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "running anyway (--force)") {
		t.Errorf("fhew run --force:\n%s", got)
	}
	memAvailable = saved
	if got := runWorkflow(t, dir, "keygen", "--params", "ToySigned", "--insecure", "-o", "TMP/k"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	if got := runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/add.hdl", "--batch", "TMP/b.batch", "-o", "TMP/in.ct"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	memAvailable = func() (int64, bool) { return 1 << 20, true }
	got = runWorkflow(t, dir, "eval", "--eval-key", "TMP/k/eval.key", "TMP/add.hdl", "TMP/in.ct", "-o", "TMP/out.ct")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "memory: about") || !strings.Contains(got, "instances' inputs and outputs") {
		t.Errorf("fhew eval over the memory available:\n%s", got)
	}
}
