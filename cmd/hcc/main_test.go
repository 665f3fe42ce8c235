package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fhewSetsRe matches a printed list of the FHEW parameter sets.
var fhewSetsRe = regexp.MustCompile(`\[STD128_[A-Za-z0-9_ ]*\]`)

// sharedDir is shared/circuits (see testenv.SharedCircuits).
func sharedDir(t *testing.T) string { return testenv.SharedCircuits(t) }

// runHCC calls run and renders its exit status, stdout and stderr as one
// text (what the golden files hold). SHARED in args is replaced by the
// shared/circuits path, which is then written back as SHARED in the output.
func runHCC(t *testing.T, args ...string) string {
	t.Helper()
	// Only the cases that name SHARED need shared/ (and skip without it).
	shared := "\x00no shared/ needed"
	for _, a := range args {
		if strings.Contains(a, "SHARED") {
			shared = sharedDir(t)
			break
		}
	}
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "SHARED", shared)
	}
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	text := fmt.Sprintf("exit %d\n-- stdout --\n%s-- stderr --\n%s", code, stdout.String(), stderr.String())
	// The list of FHEW parameter sets grows with the backend; the goldens
	// pin the messages around it.
	text = fhewSetsRe.ReplaceAllString(text, "[FHEW SETS]")
	return strings.ReplaceAll(text, shared, "SHARED")
}

// checkGolden compares got with testdata/golden/NAME.golden (or rewrites it
// under -update).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

const (
	fipsKey = "in0=0x000102030405060708090a0b0c0d0e0f"
	fipsPT  = "in1=0x00112233445566778899aabbccddeeff"
)

// TestGolden pins the output of every command, including each error case.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"sim_aes", []string{"sim", "SHARED/aes_128.txt", "--in", fipsKey, "--in", fipsPT}},
		{"sim_aes_flags_first", []string{"sim", "--in=in0=0x2b7e151628aed2a6abf7158809cf4f3c", "-in", "in1=0x3243f6a8885a308d313198a2e0370734", "SHARED/aes_128.txt"}},
		{"sim_mult64", []string{"sim", "SHARED/mult64.txt", "--in", "in0=0xffffffffffffffff", "--in", "in1=3"}},
		{"sim_hdl", []string{"sim", "testdata/small.hdl", "-circuit", "mix", "--in", "x=-100", "--in", "y=0x9c", "--in", "v=3,15"}},
		{"sim_hdl_depth", []string{"sim", "testdata/small.hdl", "-circuit=mix", "-style", "depth", "--in", "x=127", "--in", "y=1", "--in", "v=0b1111,0x0"}},
		{"sim_maj", []string{"sim", "testdata/small.hdl", "-circuit", "maj3", "--in", "a=1", "--in", "b=0", "--in", "c=1"}},
		{"stats_aes", []string{"stats", "SHARED/aes_128.txt"}},
		{"compile_fhew_v", []string{"compile", "SHARED/adder64.txt", "--backend", "fhew", "-v"}},
		{"compile_fhew_parity", []string{"compile", "testdata/xor48.hir", "--backend", "fhew", "-v"}},
		{"compile_fhew_parity_40", []string{"compile", "testdata/xor48.hir", "--backend", "fhew", "-v", "--parity-failure", "-40"}},
		{"err_parity_failure", []string{"compile", "testdata/xor48.hir", "--backend", "fhew", "--parity-failure", "0"}},
		{"compile_bgv", []string{"compile", "testdata/small.hdl", "-circuit", "mix", "--backend", "bgv", "-v"}},
		{"err_compile_hcp_no_backend", []string{"compile", "testdata/maj3.hir", "-o", "x.hcp"}},
		{"err_compile_fhew_toy_refused", []string{"compile", "testdata/maj3.hir", "--backend", "fhew", "--params", "ToySigned"}},
		{"stats_hir", []string{"stats", "testdata/maj3.hir"}},
		{"sim_hir", []string{"sim", "testdata/maj3.hir", "--in", "a=1", "--in", "b=0", "--in", "c=1"}},
		{"dot_hir", []string{"dot", "testdata/maj3.hir"}},
		{"export_hir", []string{"export-bristol", "testdata/maj3.hir"}},
		{"help", []string{"--help"}},
		{"help_sim", []string{"help", "sim"}},
		{"help_compile", []string{"compile", "--help"}},
		{"help_stats", []string{"stats", "-h"}},
		{"help_dot", []string{"dot", "--help"}},
		{"help_export", []string{"export-bristol", "--help"}},
		{"help_version", []string{"version", "--help"}},
		// Errors: each gives a non-zero status and one "hcc: ..." line.
		{"err_no_command", []string{}},
		{"err_unknown_command", []string{"simulate", "x"}},
		{"err_unknown_flag", []string{"sim", "--bogus", "testdata/small.hdl"}},
		{"err_no_file", []string{"stats"}},
		{"err_two_files", []string{"stats", "a.hir", "b.hir"}},
		{"err_missing_file", []string{"stats", "testdata/nonexistent.hir"}},
		{"err_bad_style", []string{"stats", "testdata/small.hdl", "-style", "fast"}},
		{"err_missing_input", []string{"sim", "SHARED/aes_128.txt", "--in", fipsKey}},
		{"err_unknown_input", []string{"sim", "SHARED/aes_128.txt", "--in", fipsKey, "--in", fipsPT, "--in", "key=1"}},
		{"err_out_of_range", []string{"sim", "testdata/small.hdl", "-circuit", "mix", "--in", "x=128", "--in", "y=0", "--in", "v=0,0"}},
		{"err_negative_unsigned", []string{"sim", "testdata/small.hdl", "-circuit", "mix", "--in", "x=1", "--in", "y=0", "--in", "v=-1,0"}},
		{"err_hex_too_wide", []string{"sim", "testdata/small.hdl", "-circuit", "mix", "--in", "x=0x100", "--in", "y=0", "--in", "v=0,0"}},
		{"err_bad_number", []string{"sim", "testdata/small.hdl", "-circuit", "mix", "--in", "x=12z", "--in", "y=0", "--in", "v=0,0"}},
		{"err_elements", []string{"sim", "testdata/small.hdl", "-circuit", "mix", "--in", "x=1", "--in", "y=0", "--in", "v=1,2,3"}},
		{"err_twice", []string{"sim", "testdata/small.hdl", "-circuit", "maj3", "--in", "a=1", "--in", "a=0"}},
		{"err_in_syntax", []string{"sim", "testdata/small.hdl", "-circuit", "maj3", "--in", "a"}},
		{"err_which_circuit", []string{"stats", "testdata/small.hdl"}},
		{"err_hdl", []string{"compile", "testdata/bad.hdl", "-o", "unused.hir"}},
		{"err_bristol", []string{"sim", "testdata/bad.txt", "--in", "in0=1", "--in", "in1=0"}},
		{"err_circuit_name", []string{"stats", "SHARED/adder64.txt", "-circuit", "mult64"}},
		{"err_version_args", []string{"version", "extra"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := runHCC(t, tc.args...)
			if strings.HasPrefix(tc.name, "err_") {
				if strings.HasPrefix(got, "exit 0") {
					t.Errorf("error case exited 0:\n%s", got)
				}
				if _, stderr, _ := strings.Cut(got, "-- stderr --\n"); !strings.Contains(stderr, "hcc: ") {
					t.Errorf("no hcc: reason on stderr:\n%s", got)
				}
			} else if !strings.HasPrefix(got, "exit 0") {
				t.Errorf("failed:\n%s", got)
			}
			checkGolden(t, tc.name, got)
		})
	}
}

func TestVersion(t *testing.T) {
	got := runHCC(t, "version")
	if !strings.HasPrefix(got, "exit 0\n-- stdout --\nhcc "+version+" (go") || !strings.Contains(got, versionLine()+"\n") {
		t.Errorf("version:\n%s", got)
	}
	// The test binary records its module (as "(devel)": no go install).
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && !strings.Contains(got, ", module "+bi.Main.Path+" "+bi.Main.Version) {
		t.Errorf("version does not name the module %s %s:\n%s", bi.Main.Path, bi.Main.Version, got)
	}
	for _, flag := range []string{"--version", "-version"} {
		if alias := runHCC(t, flag); alias != got {
			t.Errorf("hcc %s:\n%s\nwant the output of hcc version:\n%s", flag, alias, got)
		}
	}
}

// TestSimAES is the acceptance check, stated without golden files.
func TestSimAES(t *testing.T) {
	got := runHCC(t, "sim", "SHARED/aes_128.txt", "--in", fipsKey, "--in", fipsPT)
	if !strings.Contains(got, "out0 = 140591190147677442632770771134392354138 (0x69c4e0d86a7b0430d8cdb78070b4c55a)\n") {
		t.Errorf("AES ciphertext missing:\n%s", got)
	}
}

// TestCompileHDL checks compile's report without pinning gate counts, which
// belong to package lang and change with its lowering.
func TestCompileHDL(t *testing.T) {
	size := runHCC(t, "compile", "testdata/small.hdl", "-circuit", "mix")
	depth := runHCC(t, "compile", "testdata/small.hdl", "-circuit", "mix", "-style", "depth")
	for _, got := range []string{size, depth} {
		for _, want := range []string{"exit 0\n", "circuit:         mix\n", "inputs:          24 bits\n", "outputs:         24 bits\n", "and-depth:"} {
			if !strings.Contains(got, want) {
				t.Errorf("compile output lacks %q:\n%s", want, got)
			}
		}
	}
	if size == depth {
		t.Error("-style depth made no difference")
	}
}

// TestRoundTrips compiles to .hir and exports Bristol, then simulates the
// written files: the outputs must not change.
func TestRoundTrips(t *testing.T) {
	dir := t.TempDir()
	hir := filepath.Join(dir, "mix.hir")
	txt := filepath.Join(dir, "mix.txt")
	ins := []string{"--in", "x=-77", "--in", "y=100", "--in", "v=9,6"}
	if got := runHCC(t, "compile", "testdata/small.hdl", "-circuit", "mix", "-o", hir); !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "wrote "+hir) {
		t.Fatalf("compile:\n%s", got)
	}
	if got := runHCC(t, "export-bristol", hir, "-o", txt); !strings.HasPrefix(got, "exit 0") {
		t.Fatalf("export:\n%s", got)
	}
	want := runHCC(t, append([]string{"sim", "testdata/small.hdl", "-circuit", "mix"}, ins...)...)
	if got := runHCC(t, append([]string{"sim", hir}, ins...)...); got != want {
		t.Errorf(".hir simulates differently:\n%s\nwant\n%s", got, want)
	}
	// The Bristol file has unsigned buses in0 (x), in1 (y), in2 (v, 8 bits:
	// element 0 in the low nibble) and out0 (s), out1 (d), out2 (w).
	got := runHCC(t, "sim", txt, "--in", "in0=0xb3", "--in", "in1=100", "--in", "in2=0x69")
	for _, line := range []string{"out0 = 23 (0x17)", "out1 = 79 (0x4f)", "out2 = 166 (0xa6)"} {
		if !strings.Contains(got, line) {
			t.Errorf("Bristol sim lacks %q:\n%s\nHDL sim:\n%s", line, got, want)
		}
	}
}
