package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/cmd/hcc/load"
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
		in, err := load.Inputs(c, assigns)
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Eval(in)
		if err != nil {
			t.Fatal(err)
		}
		want.WriteString(batchLine(c, out))
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
// only) with 16 different random instances, one per slot, through hcc run
// --batch --check, and compares each printed line with the plaintext
// simulator here as well; then the same instances through keygen, encrypt
// --batch, eval and decrypt.
func TestBGVBatch(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"adder64", "zero_equal"} {
		batch, want := writeBatch(t, dir, name, 16, uint64(i+7))
		circuit := "SHARED/" + name + ".txt"
		got := runHCC(t, "run", circuit, "--backend", "bgv", "--params", "ToyM257", "--insecure", "--batch", batch, "--check")
		if !strings.HasPrefix(got, "exit 0") || stdoutOf(got) != want {
			t.Fatalf("run %s --batch:\n%s\nwant stdout\n%s", name, got, want)
		}
		if !strings.Contains(got, "check: all") {
			t.Errorf("run %s: no check line:\n%s", name, got)
		}
		if i > 0 {
			continue
		}
		keys := filepath.Join(dir, "keys")
		for _, args := range [][]string{
			{"keygen", "--backend", "bgv", "--params", "ToyM257", "--insecure", "-o", keys},
			{"encrypt", "--key", filepath.Join(keys, "secret.key"), circuit, "--batch", batch, "-o", filepath.Join(dir, "in.ct")},
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
	step("encrypt", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "--in", adderIn0, "--in", adderIn1, "-o", "TMP/in.ct")
	step("eval", "--eval-key", "TMP/keys/eval.key", "SHARED/adder64.txt", "TMP/in.ct", "-o", "TMP/out.ct", "--threads", "2")
	step("decrypt", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "TMP/out.ct")
	step("encrypt", "--key", "TMP/keys/secret.key", "testdata/small.hdl", "-circuit", "mix", "--batch", "TMP/small.batch", "-o", "TMP/small.ct")
	step("eval", "--eval-key", "TMP/keys/eval.key", "testdata/small.hdl", "-circuit", "mix", "TMP/small.ct", "-o", "TMP/small_out.ct", "--threads", "2")
	step("decrypt", "--key", "TMP/keys/secret.key", "testdata/small.hdl", "-circuit", "mix", "TMP/small_out.ct")
	step(append([]string{"run", "testdata/small.hdl", "-circuit", "mix", "--in", "x=-100", "--in", "y=0x9c", "--in", "v=3,15", "--threads", "2", "--check"}, toy...)...)
	step(append([]string{"run", "testdata/small.hdl", "-circuit", "mix", "--batch", "TMP/small.batch", "--threads", "2", "--check"}, toy...)...)
	checkGolden(t, "bgv_workflow", flow.String())
	if !strings.Contains(flow.String(), "out0 = 81985529216486894 (0x0123456789abcdee)") {
		t.Errorf("decrypted sum missing:\n%s", flow.String())
	}

	// A key whose chain is too short for adder64 (depth 7 > 4): encrypt
	// refuses, so the inputs for eval's refusal are made here.
	if got := runWorkflow(t, dir, "keygen", "--backend", "bgv", "--params", "ToyM17", "--insecure", "-o", "TMP/m17"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	writeTopLevelInputs(t, filepath.Join(dir, "m17"), filepath.Join(sharedDir(t), "mult64.txt"), filepath.Join(dir, "m17.ct"))

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
		{"batch_too_many", append([]string{"run", "SHARED/adder64.txt", "--batch", "TMP/many.batch"}, toy...)},
		{"batch_bad_line", append([]string{"run", "SHARED/adder64.txt", "--batch", "TMP/bad.batch"}, toy...)},
		{"batch_and_in", append([]string{"run", "SHARED/adder64.txt", "--batch", "TMP/bad.batch", "--in", adderIn0}, toy...)},
		{"batch_fhew", []string{"run", "SHARED/adder64.txt", "--batch", "TMP/many.batch", "--params", "ToySigned", "--insecure"}},
		{"encrypt_too_many", []string{"encrypt", "--key", "TMP/keys/secret.key", "SHARED/adder64.txt", "--batch", "TMP/many.batch", "-o", "TMP/x.ct"}},
		{"encrypt_too_deep", []string{"encrypt", "--key", "TMP/m17/secret.key", "SHARED/mult64.txt", "--in", adderIn0, "--in", adderIn1, "-o", "TMP/x.ct"}},
		{"eval_too_deep", evalArgs("TMP/m17/eval.key", "SHARED/mult64.txt", "TMP/m17.ct")},
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

// TestBGVAutoParams: without --params, run takes M8191 while the depth and
// the instance count fit it, M65537 otherwise.
func TestBGVAutoParams(t *testing.T) {
	for _, tc := range []struct {
		depth, instances int
		want             string
	}{{6, 630, "M8191"}, {7, 1, "M65537"}, {1, 631, "M65537"}} {
		w := &workflowFlags{backend: "bgv"}
		t0 := time.Now()
		pr, err := w.bgvParams(tc.depth, tc.instances)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("depth %d, %d instances: %s in %v", tc.depth, tc.instances, pr.Name(), time.Since(t0))
		if pr.Name() != tc.want {
			t.Errorf("depth %d, %d instances: %s, want %s", tc.depth, tc.instances, pr.Name(), tc.want)
		}
	}
}

// TestBGVKeyMismatch: a key file whose header names one BGV set but whose
// body is a key of another (an intact outer checksum) is refused by the
// inner parameter id, as is an evaluation key whose body is damaged and
// re-sealed.
func TestBGVKeyMismatch(t *testing.T) {
	dir := t.TempDir()
	for _, set := range []string{"ToyM17", "ToyM257"} {
		w := &workflowFlags{backend: "bgv", params: set, insecure: true}
		params, sk, ek, err := w.genKeys()
		if err != nil {
			t.Fatal(err)
		}
		h := fileHeader{backend: "bgv", params: "ToyM257", key: keyIDOf(ek)}
		h.kind = kindSecretKey
		if err := os.WriteFile(filepath.Join(dir, params+".secret"), (&keyFile{fileHeader: h, body: sk}).marshal(), 0o600); err != nil {
			t.Fatal(err)
		}
		ek[len(ek)/2] ^= 1
		h.kind, h.key = kindEvalKey, keyIDOf(ek)
		if err := os.WriteFile(filepath.Join(dir, params+".eval"), (&keyFile{fileHeader: h, body: ek}).marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := loadSecretKey(filepath.Join(dir, "ToyM257.secret")); err != nil {
		t.Fatalf("intact key: %v", err)
	}
	_, _, err := loadSecretKey(filepath.Join(dir, "ToyM17.secret"))
	if want := `ToyM17.secret: bgv: bad encoding: key is not for parameter set "ToyM257" (name, m, digits or primes differ)`; err == nil || err.Error() != want {
		t.Errorf("ToyM17 key under a ToyM257 header: %v, want %s", err, want)
	}
	_, _, err = loadEvalKey(filepath.Join(dir, "ToyM257.eval"), &workflowFlags{parityFailure: -80})
	if want := "ToyM257.eval: bgv: bad encoding: checksum mismatch (corrupted or truncated)"; err == nil || err.Error() != want {
		t.Errorf("damaged, re-sealed evaluation key: %v, want %s", err, want)
	}
}

// writeTopLevelInputs encrypts zero inputs of the circuit at path under the
// BGV key pair in keys at the top level, bypassing encrypt's depth check.
func writeTopLevelInputs(t *testing.T, keys, path, out string) {
	t.Helper()
	sk, kf, err := loadSecretKey(filepath.Join(keys, "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	client := sk.(*bgvClient)
	c, err := ir.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cts, err := client.encryptAt([][]bool{make([]bool, c.NumInputBits())}, client.pr.MaxLevel())
	if err != nil {
		t.Fatal(err)
	}
	f := &ctFile{
		fileHeader:  fileHeader{kind: ctInputs, backend: kf.backend, params: kf.params, key: kf.key},
		circuitHash: circuitHash(c), circuitName: c.Name, layout: layoutOf(c.Inputs),
	}
	if err := f.setCiphertexts(client, cts); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, f.marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
}
