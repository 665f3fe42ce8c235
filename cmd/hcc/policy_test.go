package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
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

// TestMemoryRefusal: a BGV run prints its memory estimate and is refused
// before keygen when 1.5 times it exceeds the memory available, unless
// --force; unknown available memory refuses nothing (F5).
func TestMemoryRefusal(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	saved := memAvailable
	defer func() { memAvailable = saved }()
	bgvRun := []string{"run", "--backend", "bgv", "--params", "ToyM257", "--insecure", "TMP/add.hdl", "--in", "a=1", "--in", "b=2"}

	memAvailable = func() (int64, bool) { return 1000, true }
	got := runWorkflow(t, dir, bgvRun...)
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "memory: about") || !strings.Contains(got, "more than the 1.0 kB available") ||
		!strings.Contains(got, "fewer --threads") || !strings.Contains(got, "--force") || strings.Contains(got, "keygen") {
		t.Errorf("run over the memory available:\n%s", got)
	}
	got = runWorkflow(t, dir, append(bgvRun, "--force")...)
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "running anyway (--force)") || !strings.Contains(got, "s = 3") {
		t.Errorf("run --force:\n%s", got)
	}
	memAvailable = func() (int64, bool) { return 0, false }
	got = runWorkflow(t, dir, bgvRun...)
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "memory: about") {
		t.Errorf("run with unknown memory:\n%s", got)
	}
	// eval and encrypt check too.
	if got := runWorkflow(t, dir, "keygen", "--backend", "bgv", "--params", "ToyM257", "--insecure", "-o", "TMP/k"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	if got := runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/add.hdl", "--in", "a=1", "--in", "b=2", "-o", "TMP/in.ct"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	memAvailable = func() (int64, bool) { return 1000, true }
	got = runWorkflow(t, dir, "eval", "--eval-key", "TMP/k/eval.key", "TMP/add.hdl", "TMP/in.ct", "-o", "TMP/out.ct")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "more than the 1.0 kB available") || strings.Contains(got, "evaluated") {
		t.Errorf("eval over the memory available:\n%s", got)
	}
	got = runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/add.hdl", "--in", "a=1", "--in", "b=2", "-o", "TMP/in2.ct")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "smaller batch") {
		t.Errorf("encrypt over the memory available:\n%s", got)
	}
}

// TestCheckAgainstSource: run --check's reference is the source circuit,
// so a compiled program that computes something else fails (F20).
func TestCheckAgainstSource(t *testing.T) {
	dir := t.TempDir()
	load := func(text string) *ir.Circuit {
		c, err := hcc.LoadCircuit(hcc.Source{Name: writeHDL(t, dir, "c.hdl", text)}, "")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	add := load(policyAdd)
	sub := load("circuit add(a: u8, b: u8) -> (s: u8) { s = a - b; }\n")
	p, err := hcc.Compile(hcc.FromCircuit(add), hcc.Target{Params: "ToySigned", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.ParseInputs("a=5", "b=3")
	if err != nil {
		t.Fatal(err)
	}
	want, ref, err := plainReference(add, p, []hcc.Values{in}, false)
	if err != nil || want[0]["s"][0].Int64() != 8 || !strings.Contains(ref, "source circuit") {
		t.Errorf("same function: %v %q %v", want, ref, err)
	}
	// p is not a compilation of sub: the check must say so.
	_, _, err = plainReference(sub, p, []hcc.Values{in}, false)
	if err == nil || !strings.Contains(err.Error(), "compiled program (in plaintext) differs from the source circuit") ||
		!strings.Contains(err.Error(), "the source circuit says 2") {
		t.Errorf("miscompiled: %v", err)
	}
	if _, ref, err := plainReference(sub, p, []hcc.Values{in}, true); err != nil || !strings.Contains(ref, "not available") {
		t.Errorf("from a .hcp: %q %v", ref, err)
	}
}
