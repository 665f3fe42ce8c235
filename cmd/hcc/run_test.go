package main

import (
	"io"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
)

var (
	keyIDRe    = regexp.MustCompile(`\b[0-9a-f]{16}\b`)
	durationRe = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|ms|s)\b`)
	percentRe  = regexp.MustCompile(`efficiency [0-9]+%`)
	// Bootstrap and LUT counts belong to package optimize and change with it.
	statsLineRe = regexp.MustCompile(`(?m)^(compiled|evaluated|keygen|loaded|memory).*$`)
	numberRe    = regexp.MustCompile(`\b[0-9]+\b`)
)

// runWorkflow runs hcc with TMP in args standing for dir, and returns the
// output with what changes from run to run replaced: dir by TMP, key ids
// by KEYID, durations by DUR, and numbers on the compile and run statistics
// lines by N.
func runWorkflow(t *testing.T, dir string, args ...string) string {
	t.Helper()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "TMP", dir)
	}
	got := runHCC(t, args...)
	got = strings.ReplaceAll(got, dir, "TMP")
	got = keyIDRe.ReplaceAllString(got, "KEYID")
	got = durationRe.ReplaceAllString(got, "DUR")
	got = percentRe.ReplaceAllString(got, "efficiency N%")
	return statsLineRe.ReplaceAllStringFunc(got, func(line string) string {
		return numberRe.ReplaceAllString(line, "N")
	})
}

const (
	adderIn0 = "in0=0xffffffffffffffff"
	adderIn1 = "in1=0x0123456789abcdef"
)

// TestWorkflowGolden pins keygen -> encrypt -> eval -> decrypt and run at
// ToySigned (insecure, test only), and every workflow error: each exits
// non-zero with one "hcc: ..." line.
func TestWorkflowGolden(t *testing.T) {
	dir := t.TempDir()
	var flow strings.Builder
	step := func(args ...string) {
		t.Helper()
		line := "$ hcc " + strings.Join(args, " ") + "\n"
		got := runWorkflow(t, dir, args...)
		if !strings.HasPrefix(got, "exit 0") {
			t.Fatalf("hcc %v failed:\n%s", args, got)
		}
		flow.WriteString(line + got)
	}
	step("keygen", "--params", "ToySigned", "--insecure", "-o", "TMP/keys")
	step("keygen", "--params", "ToySigned", "--insecure", "-o", "TMP/other")
	step("encrypt", "--insecure", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "--in", adderIn0, "--in", adderIn1, "-o", "TMP/in.ct")
	step("eval", "--eval-key", "TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/in.ct", "-o", "TMP/out.ct", "--threads", "2")
	step("decrypt", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "TMP/out.ct")
	step("run", "testdata/small.hdl", "-circuit", "mix", "--in", "x=-100", "--in", "y=0x9c", "--in", "v=3,15",
		"--params", "ToySigned", "--insecure", "--threads", "2", "--check")
	step("encrypt", "--insecure", "--key", "TMP/keys/secret.key", "testdata/xor48.hir", "--in", "x=0xfedcba987655", "-o", "TMP/x.ct")
	step("eval", "--eval-key", "TMP/keys/eval.key", "testdata/xor48.hir", "TMP/x.ct", "-o", "TMP/xout.ct", "--parity-failure", "-40")
	step("decrypt", "--key", "TMP/keys/secret.key", "testdata/xor48.hir", "TMP/xout.ct")
	step("run", "testdata/xor48.hir", "--in", "x=0xfedcba987655", "--params", "ToySigned", "--insecure", "--parity-failure", "-40", "--check")
	checkGolden(t, "fhew_workflow", flow.String())
	if !strings.Contains(flow.String(), "out0 = 81985529216486894 (0x0123456789abcdee)") {
		t.Errorf("decrypted sum missing:\n%s", flow.String())
	}
	if st, err := os.Stat(filepath.Join(dir, "keys", "secret.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("secret.key: %v, mode %v; want mode 0600", err, st.Mode().Perm())
	}

	// Damaged copies of in.ct.
	data, err := os.ReadFile(filepath.Join(dir, "in.ct"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 1
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("corrupt.ct", flipped)
	write("truncated.ct", data[:len(data)-100])
	write("stub.ct", data[:12])

	evalArgs := func(key, circuit, ct string) []string {
		return []string{"eval", "--eval-key", key, circuit, ct, "-o", "TMP/unused.ct"}
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"insecure", []string{"keygen", "--params", "ToySigned", "-o", "TMP/k"}},
		{"unknown_params", []string{"keygen", "--params", "STD256", "-o", "TMP/k"}},
		{"backend", []string{"keygen", "--backend", "ckks", "-o", "TMP/k"}},
		{"keygen_no_dir", []string{"keygen"}},
		{"encrypt_missing_input", []string{"encrypt", "--insecure", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "--in", adderIn0, "-o", "TMP/x.ct"}},
		{"encrypt_no_key", []string{"encrypt", "SHARED/adder64.txt", "--in", adderIn0, "--in", adderIn1, "-o", "TMP/x.ct"}},
		{"encrypt_eval_key", []string{"encrypt", "--insecure", "--key", "TMP/keys/eval.key", "SHARED/adder64.txt", "--in", adderIn0, "--in", adderIn1, "-o", "TMP/x.ct"}},
		{"eval_wrong_key", evalArgs("TMP/other/eval.key", "SHARED/adder64.txt", "TMP/in.ct")},
		{"eval_other_circuit", evalArgs("TMP/keys/eval.key", "SHARED/sub64.txt", "TMP/in.ct")},
		{"eval_corrupt", evalArgs("TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/corrupt.ct")},
		{"eval_truncated", evalArgs("TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/truncated.ct")},
		{"eval_stub", evalArgs("TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/stub.ct")},
		{"eval_outputs", evalArgs("TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/out.ct")},
		{"eval_not_ct", evalArgs("TMP/keys/eval.key", "SHARED/adder64.txt", "SHARED/adder64.txt")},
		{"eval_secret_key", evalArgs("TMP/keys/secret.key", "SHARED/adder64.txt", "TMP/in.ct")},
		{"eval_one_arg", []string{"eval", "--eval-key", "TMP/keys/eval.key", "SHARED/adder64.txt", "-o", "TMP/x.ct"}},
		{"decrypt_wrong_key", []string{"decrypt", "--key", "TMP/other/secret.key", "SHARED/adder64.txt", "TMP/out.ct"}},
		{"decrypt_other_circuit", []string{"decrypt", "--key", "TMP/keys/secret.key", "SHARED/sub64.txt", "TMP/out.ct"}},
		{"decrypt_inputs", []string{"decrypt", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "TMP/in.ct"}},
		{"run_missing_input", []string{"run", "SHARED/adder64.txt", "--in", adderIn0, "--params", "ToySigned", "--insecure"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runWorkflow(t, dir, tc.args...)
			if strings.HasPrefix(got, "exit 0") {
				t.Errorf("error case exited 0:\n%s", got)
			}
			_, stderr, _ := strings.Cut(got, "-- stderr --\n")
			if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "hcc: ") {
				t.Errorf("want one hcc: line on stderr:\n%s", got)
			}
			checkGolden(t, "fhew_err_"+tc.name, got)
		})
	}
}

// TestCompareOutputs: --check reports the first differing element and how
// many differ.
func TestCompareOutputs(t *testing.T) {
	b := ir.NewBuilder("c")
	x := b.Input("x", 4, true, 2)
	b.Output("y", 4, true, x, 2)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := hcc.Compile(hcc.FromCircuit(c), hcc.Target{Params: "ToySigned", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	v := func(a, b int64) ir.Values { return ir.Values{"y": {big.NewInt(a), big.NewInt(b)}} }
	if err := compareOutputs(p, v(1, -2), v(1, -2)); err != nil {
		t.Errorf("equal outputs: %v", err)
	}
	err = compareOutputs(p, v(1, -2), v(1, 3))
	want := "check FAILED: encrypted result differs from the plaintext simulator in 1 output element(s): y[1] = -2 (0xe), the plaintext simulator says 3 (0x3)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestEvalMapsLikeRun checks that eval (the target built from an
// evaluation key file and the flags) and run/compile map a circuit to the
// same program for the same --parity-failure, and that the flag matters:
// eval re-derives the mapping from the source circuit alone.
func TestEvalMapsLikeRun(t *testing.T) {
	dir := t.TempDir()
	if got := runWorkflow(t, dir, "keygen", "--params", "ToySigned", "--insecure", "-o", "TMP/keys"); !strings.HasPrefix(got, "exit 0") {
		t.Fatalf("keygen: %s", got)
	}
	sk, err := hcc.ReadServerKeyFile(filepath.Join(dir, "keys", "eval.key"))
	if err != nil {
		t.Fatal(err)
	}
	parities := map[float64]int{}
	for _, pf := range []float64{-40, -80} {
		w := &workflowFlags{parityFailure: pf}
		e := &cmdEnv{args: []string{"testdata/xor48.hir"}, stderr: io.Discard}
		fromKey, err := program(e, w.target(e, sk.Engine(), sk.Params(), true), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		fromFlags, err := program(e, w.target(e, "fhew", "ToySigned", true), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fromKey.Hash() != fromFlags.Hash() {
			t.Errorf("--parity-failure %v: eval and run map xor48 differently", pf)
		}
		parities[pf] = fromKey.Circuit().Stats().Count[ir.OpParity]
	}
	if parities[-40] != 1 || parities[-80] != 2 {
		t.Errorf("PARITY nodes at -40, -80: %v, want 1 and 2 (K = 64 and 40 on ToySigned)", parities)
	}
}
