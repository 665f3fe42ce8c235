package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rgswCircuit has tables that read 1-, 2- and 3-term XORs of input bits
// (and one table output): with --input-rgsw most of its bootstraps go.
const rgswCircuit = `circuit wdir(a: u8, b: u8, c: u8) -> (y: bit, z: bit, v: u8) {
	y = (a ^ b) == 0xff;
	z = (a ^ b ^ c) == 0;
	v = (a & c) + b;
}
`

// bootstrapsRe reads the evaluation line's circuit bootstrap count.
var bootstrapsRe = regexp.MustCompile(`evaluated \(.*\): (\d+) circuit bootstraps`)

// rgswPriced matches a memory estimate that counts input RGSWs.
var rgswPriced = regexp.MustCompile(`memory: about .*with their RGSWs`)

// bootstraps returns the circuit bootstraps an hcc output reports.
func bootstraps(t *testing.T, out string) int {
	t.Helper()
	m := bootstrapsRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no circuit bootstrap count in\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// runRaw is runWorkflow without its normalisation (the test reads counts).
func runRaw(t *testing.T, dir string, args ...string) string {
	t.Helper()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "TMP", dir)
	}
	return runHCC(t, args...)
}

// TestInputRGSWFlag: run and encrypt --input-rgsw on ToyCBS give the same
// (checked) outputs with fewer circuit bootstraps and a larger input file,
// eval reads such a file (pricing its RGSWs), a gate set refuses the flag
// before keygen, and --help says what it costs and gains.
func TestInputRGSWFlag(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "d.hdl", rgswCircuit)
	if err := os.WriteFile(filepath.Join(dir, "b.batch"), []byte("a=1 b=254 c=3\na=0x0f b=0xf0 c=0xff\na=7 b=9 c=200\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := []string{"run", "--params", "ToyCBS", "--insecure", "--check", "--threads", "2", "TMP/d.hdl", "--batch", "TMP/b.batch"}
	plain := runRaw(t, dir, run...)
	with := runRaw(t, dir, append(run, "--input-rgsw")...)
	for _, got := range []string{plain, with} {
		if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "check: all 10 output bits of 3 instances match") {
			t.Fatalf("run:\n%s", got)
		}
	}
	if !strings.Contains(with, "with their input RGSWs") || !rgswPriced.MatchString(with) || rgswPriced.MatchString(plain) {
		t.Errorf("run --input-rgsw does not say so (encryption, memory estimate):\n%s", with)
	}
	if b0, b1 := bootstraps(t, plain), bootstraps(t, with); b1 >= b0 || b1 == 0 {
		t.Errorf("run: %d circuit bootstraps with --input-rgsw, %d without", b1, b0)
	}

	// The file workflow: keygen, encrypt with and without, eval, decrypt.
	if got := runRaw(t, dir, "keygen", "--params", "ToyCBS", "--insecure", "-o", "TMP/k"); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	size := map[string]int64{}
	outs := map[string]string{}
	for _, name := range []string{"plain", "rgsw"} {
		args := []string{"encrypt", "--insecure", "--key", "TMP/k/secret.key", "TMP/d.hdl", "--batch", "TMP/b.batch", "-o", "TMP/" + name + ".ct"}
		if name == "rgsw" {
			args = append(args, "--input-rgsw")
		}
		got := runRaw(t, dir, args...)
		if !strings.HasPrefix(got, "exit 0") || strings.Contains(got, "with their input RGSWs") != (name == "rgsw") ||
			rgswPriced.MatchString(got) != (name == "rgsw") {
			t.Fatalf("encrypt %s:\n%s", name, got)
		}
		st, err := os.Stat(filepath.Join(dir, name+".ct"))
		if err != nil {
			t.Fatal(err)
		}
		size[name] = st.Size()
		got = runRaw(t, dir, "eval", "--threads", "2", "--eval-key", "TMP/k/eval.key", "TMP/d.hdl", "TMP/"+name+".ct", "-o", "TMP/"+name+".out")
		if !strings.HasPrefix(got, "exit 0") || rgswPriced.MatchString(got) != (name == "rgsw") {
			t.Fatalf("eval %s:\n%s", name, got)
		}
		got = runRaw(t, dir, "decrypt", "--key", "TMP/k/secret.key", "TMP/d.hdl", "TMP/"+name+".out")
		if !strings.HasPrefix(got, "exit 0") {
			t.Fatalf("decrypt %s:\n%s", name, got)
		}
		outs[name] = got
	}
	if outs["plain"] != outs["rgsw"] {
		t.Errorf("decrypted outputs differ:\n%s\nwith --input-rgsw:\n%s", outs["plain"], outs["rgsw"])
	}
	// ToyCBS: 4104 B per wide bit, 24608 B more per input RGSW (7x).
	if r := float64(size["rgsw"]) / float64(size["plain"]); r < 5 || r > 8 {
		t.Errorf("input file of %d bytes with --input-rgsw, %d without (%.1fx)", size["rgsw"], size["plain"], r)
	}

	got := runRaw(t, dir, "run", "--params", "ToySigned", "--insecure", "TMP/d.hdl", "--in", "a=1", "--in", "b=2", "--in", "c=3", "--input-rgsw")
	if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "no client-side input RGSWs") || strings.Contains(got, "keygen") {
		t.Errorf("run --input-rgsw on a gate set:\n%s", got)
	}
	for _, cmd := range []string{"run", "encrypt"} {
		if h := runHCC(t, cmd, "--help"); !strings.Contains(h, "-input-rgsw") || !strings.Contains(h, "1440 instead of 1600") || !strings.Contains(h, "7x larger") {
			t.Errorf("%s --help:\n%s", cmd, h)
		}
	}
}
