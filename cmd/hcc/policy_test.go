package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/backend/fhew"
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

// TestBelowTargetSets: --params help lists the sets below 128 bits apart
// from the 128-bit ones, and using one prints a one-line warning with its
// security statement (F12).
func TestBelowTargetSets(t *testing.T) {
	help := paramsHelp()
	i128, iBelow, iToy := strings.Index(help, "fhew: 128-bit ["), strings.Index(help, "below 128 bits"), strings.Index(help, "insecure, with --insecure only")
	if i128 < 0 || iBelow < i128 || iToy < iBelow {
		t.Fatalf("params help has no groups: %s", help)
	}
	for _, name := range fhew.ReproductionNames() {
		if j := strings.Index(help, name); j < iBelow || j > iToy {
			t.Errorf("%s is not listed among the below-128-bit sets: %s", name, help)
		}
	}
	for _, name := range fhew.SecureNames() {
		if j := strings.Index(help, name+" "); j > iBelow {
			t.Errorf("%s is listed after the 128-bit group: %s", name, help)
		}
	}
	// bgv's grouping by the Toy prefix agrees with Params.Secure.
	for _, name := range bgv.Names() {
		lit, err := bgv.LiteralByName(name)
		if err != nil {
			t.Fatal(err)
		}
		lit.AllowInsecure = true
		pr, err := bgv.NewParams(lit)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Secure() == strings.HasPrefix(name, "Toy") {
			t.Errorf("bgv %s: Secure %v, but the help groups it by its name", name, pr.Secure())
		}
	}
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	got := runWorkflow(t, dir, "compile", "--backend", "fhew", "--params", "STD128_LMKCDEY_G", "TMP/add.hdl")
	want := "warning: parameter set STD128_LMKCDEY_G is below the 128-bit security target (below 128 bits: ring log Q = 28 > 27"
	if !strings.HasPrefix(got, "exit 0") || strings.Count(got, want) != 1 {
		t.Errorf("compile at STD128_LMKCDEY_G:\n%s\nwant one %q", got, want)
	}
	got = runWorkflow(t, dir, "compile", "--backend", "fhew", "--params", "STD128_LOWFAIL_T", "TMP/add.hdl")
	if strings.Contains(got, "warning") {
		t.Errorf("compile at a 128-bit set warns:\n%s", got)
	}
}

// TestFailureWarningCLI: compile prints the predicted-failure warning
// once (F21).
func TestFailureWarningCLI(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	got := runWorkflow(t, dir, "compile", "--backend", "fhew", "--params", "STD128_LMKCDEY_G", "TMP/add.hdl")
	if strings.Count(got, "is above 2^-40") != 1 {
		t.Errorf("compile at STD128_LMKCDEY_G:\n%s", got)
	}
}

// TestMaxMemory: --max-memory sets the elaboration budget, and the
// refusal names the flag (F4).
func TestMaxMemory(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "m.hdl", "circuit m(a: u256, b: u256) -> (p: u256) { p = a * b; }\n")
	got := runWorkflow(t, dir, "stats", "--max-memory", "8MiB", "TMP/m.hdl")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "over the memory budget of 8 MiB") || !strings.Contains(got, "--max-memory") {
		t.Errorf("stats under 8 MiB:\n%s", got)
	}
	if got := runWorkflow(t, dir, "stats", "--max-memory", "1GiB", "TMP/m.hdl"); !strings.HasPrefix(got, "exit 0") {
		t.Errorf("stats under 1 GiB:\n%s", got)
	}
	if got := runWorkflow(t, dir, "stats", "--max-memory", "lots", "TMP/m.hdl"); !strings.HasPrefix(got, "exit 2") && !strings.Contains(got, "bad size") {
		t.Errorf("bad size:\n%s", got)
	}
	var b byteSize
	for s, want := range map[string]int64{"4GiB": 4 << 30, "512MiB": 512 << 20, "2G": 2 << 30, "1.5GiB": 3 << 29, "1000": 1000} {
		if err := b.Set(s); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", s, b, err, want)
		}
	}
	for _, s := range []string{"", "0", "-1G", "4XB", "G"} {
		if err := b.Set(s); err == nil {
			t.Errorf("Set(%q) accepted", s)
		}
	}
}

// TestThreadsLimit: --threads above 4 per CPU (at least 16) is refused
// before any work, naming the limit (F3).
func TestThreadsLimit(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	got := runWorkflow(t, dir, "run", "--params", "ToySigned", "--insecure", "--threads", "100000", "TMP/add.hdl", "--in", "a=1", "--in", "b=2")
	want := fmt.Sprintf("--threads 100000 is above the limit of %d", maxThreads())
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, want) || strings.Contains(got, "keygen") {
		t.Errorf("--threads 100000:\n%s\nwant %q", got, want)
	}
	if got := runWorkflow(t, dir, "run", "--params", "ToySigned", "--insecure", "--threads", fmt.Sprint(maxThreads()), "TMP/add.hdl", "--in", "a=1", "--in", "b=2"); !strings.HasPrefix(got, "exit 0") {
		t.Errorf("--threads at the limit:\n%s", got)
	}
}

// TestProgramKeyMismatch: encrypting for a program compiled for another
// set than the key's says which key, which set, and how to make keys (F16).
func TestProgramKeyMismatch(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "add.hdl", policyAdd)
	for _, args := range [][]string{
		{"compile", "--backend", "fhew", "--params", "ToySigned", "--insecure", "TMP/add.hdl", "-o", "TMP/add.hcp"},
		{"keygen", "--params", "ToyGINX", "--insecure", "-o", "TMP/k"},
	} {
		if got := runWorkflow(t, dir, args...); !strings.HasPrefix(got, "exit 0") {
			t.Fatal(got)
		}
	}
	got := runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/add.hcp", "--in", "a=1", "--in", "b=2", "-o", "TMP/in.ct")
	want := "keys TMP/k/secret.key are fhew/ToyGINX; TMP/add.hcp needs fhew/ToySigned: make keys for it with hcc keygen --for TMP/add.hcp"
	if !strings.Contains(got, want) {
		t.Errorf("mismatch:\n%s\nwant %q", got, want)
	}
}
