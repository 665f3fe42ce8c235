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
	dir := checkMemoryRefusal(t, "ToyCBS", "wide bits", []string{"fewer instances in each batch"}, "evaluated")
	memAvailable = func() (int64, bool) { return 100 << 10, true }
	got := runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/add.hdl", "--batch", "TMP/b.batch", "-o", "TMP/in2.ct")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "fewer instances in each batch") {
		t.Errorf("wide encrypt over the memory available:\n%s", got)
	}
}

// checkMemoryRefusal runs a three-instance batch of an adder on set: a run
// on this machine's memory prints the estimate (with runPart in it); at 1 MB
// available the run is refused before keygen unless --force, and an eval
// from files is refused with every evalMust in its output and not
// evalMustNot. It returns the directory, holding TMP/k's keys and TMP/in.ct,
// with memAvailable left at 1 MB until the test ends.
func checkMemoryRefusal(t *testing.T, set, runPart string, evalMust []string, evalMustNot string) string {
	t.Helper()
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	if err := os.WriteFile(filepath.Join(dir, "b.batch"), []byte("a=1 b=2\na=3 b=4\na=250 b=9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	saved := memAvailable
	t.Cleanup(func() { memAvailable = saved })
	run := []string{"run", "--params", set, "--insecure", "TMP/add.hdl", "--batch", "TMP/b.batch"}

	got := runWorkflow(t, dir, run...)
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "memory: about") || !strings.Contains(got, runPart) {
		t.Errorf("small %s run on the real memory:\n%s", set, got)
	}
	memAvailable = func() (int64, bool) { return 1 << 20, true }
	got = runWorkflow(t, dir, run...)
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "memory: about") || !strings.Contains(got, "more than the 1.0 MB available") ||
		!strings.Contains(got, "fewer instances in each batch") || !strings.Contains(got, "--force") || strings.Contains(got, "keygen") {
		t.Errorf("%s run over the memory available:\n%s", set, got)
	}
	got = runWorkflow(t, dir, append(run, "--force")...)
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "running anyway (--force)") {
		t.Errorf("%s run --force:\n%s", set, got)
	}
	memAvailable = saved
	if got := runWorkflow(t, dir, "keygen", "--params", set, "--insecure", "-o", "TMP/k"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	if got := runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/add.hdl", "--batch", "TMP/b.batch", "-o", "TMP/in.ct"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	memAvailable = func() (int64, bool) { return 1 << 20, true }
	got = runWorkflow(t, dir, "eval", "--eval-key", "TMP/k/eval.key", "TMP/add.hdl", "TMP/in.ct", "-o", "TMP/out.ct")
	ok := strings.HasPrefix(got, "exit 1") && (evalMustNot == "" || !strings.Contains(got, evalMustNot))
	for _, m := range evalMust {
		ok = ok && strings.Contains(got, m)
	}
	if !ok {
		t.Errorf("%s eval over the memory available:\n%s", set, got)
	}
	return dir
}
