package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
)

// writeBatch writes a --batch file of n random instances of the circuit in
// SHARED/name.txt (zero_equal: every other instance zero, so that both
// outputs occur) and returns its path and the output lines the plaintext
// simulator gives for it.
func writeBatch(t *testing.T, dir, name string, n int, seed uint64) (string, string) {
	t.Helper()
	c, err := ir.ReadFile(filepath.Join(sharedDir(t), name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var file, want strings.Builder
	file.WriteString("# random instances\n\n")
	for j := 0; j < n; j++ {
		var assigns []string
		for i := range c.Inputs {
			v := rng.Uint64()
			if name == "zero_equal" && j%2 == 0 {
				v = 0
			}
			assigns = append(assigns, fmt.Sprintf("%s=%d", c.Inputs[i].Name, v))
		}
		file.WriteString(strings.Join(assigns, " ") + "\n")
		in, err := hcc.ParseInputs(c, assigns...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Eval(in)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&want, "# instance %d\n%s", j+1, hcc.FormatOutputs(c, out))
	}
	path := filepath.Join(dir, fmt.Sprintf("%s_%d.batch", name, n))
	if err := os.WriteFile(path, []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, want.String()
}

// stdoutOf returns the stdout part of runHCC's rendering.
func stdoutOf(got string) string {
	_, rest, _ := strings.Cut(got, "-- stdout --\n")
	out, _, _ := strings.Cut(rest, "-- stderr --\n")
	return out
}

// TestBGVBatch runs adder64 and zero_equal at ToyM257 (insecure, test
// only) with 16 and 21 different random instances (one pack of 16 slots,
// then two packs) through hcc run --batch --check, and compares each
// printed instance with the plaintext simulator here as well; then the same
// instances through keygen, encrypt --batch, eval and decrypt. The same
// batch file runs on FHEW too.
func TestBGVBatch(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"adder64", "zero_equal"} {
		batch, want := writeBatch(t, dir, name, 16+5*i, uint64(i+7))
		circuit := "SHARED/" + name + ".txt"
		got := runHCC(t, "run", circuit, "--backend", "bgv", "--params", "ToyM257", "--insecure", "--batch", batch, "--check")
		if !strings.HasPrefix(got, "exit 0") || stdoutOf(got) != want {
			t.Fatalf("run %s --batch:\n%s\nwant stdout\n%s", name, got, want)
		}
		if !strings.Contains(got, "check: all") {
			t.Errorf("run %s: no check line:\n%s", name, got)
		}
		if i > 0 {
			got := runHCC(t, "run", circuit, "--params", "ToySigned", "--insecure", "--batch", batch, "--check")
			if !strings.HasPrefix(got, "exit 0") || stdoutOf(got) != want {
				t.Fatalf("run %s --batch on FHEW:\n%s\nwant stdout\n%s", name, got, want)
			}
			continue
		}
		keys := filepath.Join(dir, "keys")
		for _, args := range [][]string{
			{"keygen", "--backend", "bgv", "--params", "ToyM257", "--insecure", "-o", keys},
			{"encrypt", "--insecure", "--key", filepath.Join(keys, "secret.key"), circuit, "--batch", batch, "-o", filepath.Join(dir, "in.ct")},
			{"eval", "--eval-key", filepath.Join(keys, "eval.key"), circuit, filepath.Join(dir, "in.ct"), "-o", filepath.Join(dir, "out.ct")},
		} {
			if got := runHCC(t, args...); !strings.HasPrefix(got, "exit 0") {
				t.Fatalf("hcc %v:\n%s", args, got)
			}
		}
		got = runHCC(t, "decrypt", "--key", filepath.Join(keys, "secret.key"), circuit, filepath.Join(dir, "out.ct"))
		if stdoutOf(got) != want {
			t.Errorf("decrypt of the batch:\n%s\nwant stdout\n%s", got, want)
		}
	}
}

// TestBGVWorkflowGolden pins keygen -> encrypt -> eval -> decrypt and run
// with --backend bgv at ToyM257, and the BGV error cases: each exits
// non-zero with one "hcc: ..." line.
func TestBGVWorkflowGolden(t *testing.T) {
	dir := t.TempDir()
	small := "x=1 y=2 v=3,4\n# comment\nx=-100 y=0x9c v=3,15\nx=127 y=-1 v=0,1\n"
	if err := os.WriteFile(filepath.Join(dir, "small.batch"), []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	many := strings.Repeat("in0=1 in1=2\n", 17)
	if err := os.WriteFile(filepath.Join(dir, "many.batch"), []byte(many), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.batch"), []byte("in0=1 in1=2\nin0=1 in2=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
	toy := []string{"--backend", "bgv", "--params", "ToyM257", "--insecure"}
	step(append([]string{"keygen", "-o", "TMP/keys"}, toy...)...)
	step(append([]string{"keygen", "-o", "TMP/other"}, toy...)...)
	step("encrypt", "--insecure", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "--in", adderIn0, "--in", adderIn1, "-o", "TMP/in.ct")
	step("eval", "--eval-key", "TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/in.ct", "-o", "TMP/out.ct", "--threads", "2")
	step("decrypt", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "TMP/out.ct")
	step("encrypt", "--insecure", "--key", "TMP/keys/secret.key", "testdata/small.hdl", "-circuit", "mix", "--batch", "TMP/small.batch", "-o", "TMP/small.ct")
	step("eval", "--eval-key", "TMP/keys/eval.key", "testdata/small.hdl", "-circuit", "mix", "TMP/small.ct", "-o", "TMP/small_out.ct", "--threads", "2")
	step("decrypt", "--key", "TMP/keys/secret.key", "testdata/small.hdl", "-circuit", "mix", "TMP/small_out.ct")
	step(append([]string{"run", "testdata/small.hdl", "-circuit", "mix", "--in", "x=-100", "--in", "y=0x9c", "--in", "v=3,15", "--threads", "2", "--check"}, toy...)...)
	step(append([]string{"run", "testdata/small.hdl", "-circuit", "mix", "--batch", "TMP/small.batch", "--threads", "2", "--check"}, toy...)...)
	// More instances than the 16 slots: two packs, in one ciphertext file.
	step("encrypt", "--insecure", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "--batch", "TMP/many.batch", "-o", "TMP/many.ct")
	step("eval", "--eval-key", "TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/many.ct", "-o", "TMP/many_out.ct", "--threads", "2")
	step("decrypt", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "TMP/many_out.ct")
	checkGolden(t, "bgv_workflow", flow.String())
	if !strings.Contains(flow.String(), "out0 = 81985529216486894 (0x0123456789abcdee)") {
		t.Errorf("decrypted sum missing:\n%s", flow.String())
	}

	// A key whose chain is too short for mult64: encrypt refuses (eval's
	// refusal of inputs made at the top level is the hcc package's test).
	if got := runWorkflow(t, dir, "keygen", "--backend", "bgv", "--params", "ToyM17", "--insecure", "-o", "TMP/m17"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}

	data, err := os.ReadFile(filepath.Join(dir, "in.ct"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 1
	for name, b := range map[string][]byte{"corrupt.ct": flipped, "truncated.ct": data[:len(data)-100]} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evalArgs := func(key, circuit, ct string) []string {
		return []string{"eval", "--eval-key", key, circuit, ct, "-o", "TMP/unused.ct"}
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"too_deep", []string{"run", "SHARED/mult64.txt", "--in", adderIn0, "--in", adderIn1, "--backend", "bgv", "--params", "ToyM17", "--insecure"}},
		{"insecure", []string{"keygen", "--backend", "bgv", "--params", "ToyM257", "-o", "TMP/k"}},
		{"unknown_params", []string{"keygen", "--backend", "bgv", "--params", "M4099", "-o", "TMP/k"}},
		{"batch_bad_line", append([]string{"run", "SHARED/adder64.txt", "--batch", "TMP/bad.batch"}, toy...)},
		{"batch_and_in", append([]string{"run", "SHARED/adder64.txt", "--batch", "TMP/bad.batch", "--in", adderIn0}, toy...)},
		{"encrypt_too_deep", []string{"encrypt", "--insecure", "--key", "TMP/m17/secret.key", "SHARED/mult64.txt", "--in", adderIn0, "--in", adderIn1, "-o", "TMP/x.ct"}},
		{"eval_wrong_key", evalArgs("TMP/other/eval.key", "SHARED/adder64.txt", "TMP/in.ct")},
		{"eval_other_circuit", evalArgs("TMP/keys/eval.key", "SHARED/sub64.txt", "TMP/in.ct")},
		{"eval_corrupt", evalArgs("TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/corrupt.ct")},
		{"eval_truncated", evalArgs("TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/truncated.ct")},
		{"eval_secret_key", evalArgs("TMP/keys/secret.key", "SHARED/adder64.txt", "TMP/in.ct")},
		{"decrypt_wrong_key", []string{"decrypt", "--key", "TMP/other/secret.key", "SHARED/adder64.txt", "TMP/out.ct"}},
		{"decrypt_other_circuit", []string{"decrypt", "--key", "TMP/keys/secret.key", "SHARED/sub64.txt", "TMP/out.ct"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runWorkflow(t, dir, tc.args...)
			if strings.HasPrefix(got, "exit 0") {
				t.Errorf("error case exited 0:\n%s", got)
			}
			_, stderr, _ := strings.Cut(got, "-- stderr --\n")
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "hcc: ") || strings.Count(stderr, "hcc: ") != 1 {
				t.Errorf("want one hcc: line on stderr:\n%s", got)
			}
			checkGolden(t, "bgv_err_"+tc.name, got)
		})
	}
}
