package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryWide: run, eval and encrypt on a wide-table set print the
// estimate before keygen, refuse a batch above the memory available
// (naming the figure, fewer instances per batch and --force) unless
// --force, and a small run on this machine's real memory is not refused.
func TestMemoryWide(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	if err := os.WriteFile(filepath.Join(dir, "b.batch"), []byte("a=1 b=2\na=3 b=4\na=250 b=9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	saved := memAvailable
	defer func() { memAvailable = saved }()
	wideRun := []string{"run", "--params", "ToyCBS", "--insecure", "TMP/add.hdl", "--batch", "TMP/b.batch"}

	got := runWorkflow(t, dir, wideRun...)
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "memory: about") || !strings.Contains(got, "wide bits") {
		t.Errorf("small wide run on the real memory:\n%s", got)
	}
	memAvailable = func() (int64, bool) { return 1 << 20, true }
	got = runWorkflow(t, dir, wideRun...)
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "memory: about") || !strings.Contains(got, "more than the 1.0 MB available") ||
		!strings.Contains(got, "fewer instances in each batch") || !strings.Contains(got, "--force") || strings.Contains(got, "keygen") {
		t.Errorf("wide run over the memory available:\n%s", got)
	}
	got = runWorkflow(t, dir, append(wideRun, "--force")...)
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "running anyway (--force)") {
		t.Errorf("wide run --force:\n%s", got)
	}
	memAvailable = saved
	if got := runWorkflow(t, dir, "keygen", "--params", "ToyCBS", "--insecure", "-o", "TMP/k"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	if got := runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/add.hdl", "--batch", "TMP/b.batch", "-o", "TMP/in.ct"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	memAvailable = func() (int64, bool) { return 1 << 20, true }
	got = runWorkflow(t, dir, "eval", "--eval-key", "TMP/k/eval.key", "TMP/add.hdl", "TMP/in.ct", "-o", "TMP/out.ct")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "fewer instances in each batch") || strings.Contains(got, "evaluated") {
		t.Errorf("wide eval over the memory available:\n%s", got)
	}
	memAvailable = func() (int64, bool) { return 100 << 10, true }
	got = runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/add.hdl", "--batch", "TMP/b.batch", "-o", "TMP/in2.ct")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "fewer instances in each batch") {
		t.Errorf("wide encrypt over the memory available:\n%s", got)
	}
}
