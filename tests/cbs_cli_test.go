package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCBSWorkflowBinary runs the built hcc through compile, keygen,
// encrypt, eval and decrypt as separate processes, and run --check, on
// the tour example at the wide-table set ToyCBS (circuit bootstrapping):
// decrypt and run print exactly what hcc sim prints; the set needs
// --insecure, keys of another set are refused, and the compile summary
// names the plan.
func TestCBSWorkflowBinary(t *testing.T) {
	bin := buildHCC(t)
	dir := t.TempDir()
	tour := "../examples/tour.hdl"
	ins := []string{"--in", "a=200", "--in", "b=100", "--in", "x=-5", "--in", "v=1,2,3,4"}
	hcc := binRunner(t, bin)
	must := func(args ...string) (string, string) {
		t.Helper()
		out, errs, code := hcc(args...)
		if code != 0 {
			t.Fatalf("hcc %v: exit %d\n%s", args, code, errs)
		}
		return out, errs
	}
	sim, _ := must(append([]string{"sim", tour}, ins...)...)
	prog := filepath.Join(dir, "tour.hcp")
	o, errs := must("compile", tour, "--backend", "fhew", "--params", "ToyCBS", "--insecure", "-o", prog)
	if !strings.Contains(o+errs, "fhew/ToyCBS") {
		t.Errorf("compile printed %q, %q: no fhew/ToyCBS", o, errs)
	}
	keys := filepath.Join(dir, "keys")
	must("keygen", "--for", prog, "--insecure", "-o", keys)
	if st, err := os.Stat(filepath.Join(keys, "secret.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret.key: %v (want mode 0600)", err)
	}
	in, out := filepath.Join(dir, "in.ct"), filepath.Join(dir, "out.ct")
	must(append([]string{"encrypt", "--insecure", "--key", filepath.Join(keys, "secret.key"), prog, "-o", in}, ins...)...)
	_, errs = must("eval", "--eval-key", filepath.Join(keys, "eval.key"), prog, in, "-o", out, "--threads", "2")
	if !strings.Contains(errs, "circuit bootstraps") {
		t.Errorf("eval stderr %q does not count circuit bootstraps", errs)
	}
	if got, _ := must("decrypt", "--key", filepath.Join(keys, "secret.key"), prog, out); got != sim {
		t.Errorf("decrypt printed\n%s\nhcc sim printed\n%s", got, sim)
	}
	if got, _ := must(append([]string{"run", tour, "--params", "ToyCBS", "--insecure", "--check"}, ins...)...); got != sim {
		t.Errorf("run printed\n%s\nhcc sim printed\n%s", got, sim)
	}
	// Without --insecure the toy set is refused with one line.
	if _, errs, code := hcc(append([]string{"run", tour, "--params", "ToyCBS", "--check"}, ins...)...); code != 1 || !strings.Contains(errs, "insecure") || strings.Count(errs, "\n") > 3 {
		t.Errorf("ToyCBS without --insecure: exit %d, stderr %q", code, errs)
	}
	// Keys of a gate set do not evaluate a wide-table program.
	gate := filepath.Join(dir, "gate")
	must("keygen", "--params", "ToySigned", "--insecure", "-o", gate)
	if _, errs, code := hcc("eval", "--eval-key", filepath.Join(gate, "eval.key"), prog, in, "-o", filepath.Join(dir, "x.ct")); code != 1 || !strings.Contains(errs, "ToyCBS") {
		t.Errorf("eval with a ToySigned key: exit %d, stderr %q", code, errs)
	}
	// --params help lists the wide-table sets.
	if o, errs, _ := hcc("compile", "--help"); !strings.Contains(o+errs, "STD128_CBS") {
		t.Errorf("compile --help does not list STD128_CBS")
	}
}
