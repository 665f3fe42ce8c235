package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBenchAES runs the byte-sliced row at the toy ring on 2 blocks (the
// package checks them against crypto/aes) and the flag errors.
func TestBenchAES(t *testing.T) {
	got := runHCC(t, "bench", "aes", "--rows", "byte", "--blocks", "2", "--workers", "1")
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "| BGV byte-sliced (bgvaes, GF(2^8) slots) | ToyM257Deep (insecure) | 2 |") ||
		!strings.Contains(got, "2 block(s) checked against crypto/aes") {
		t.Fatalf("bench aes:\n%s", got)
	}
	for _, c := range []struct{ args, want string }{
		{"--rows nope", `unknown design "nope"`},
		{"--workers 0", "--workers must be at least 1"},
		{"--rows byte --ring M8191", "does not contain"},
	} {
		got := runHCC(t, append([]string{"bench", "aes"}, strings.Fields(c.args)...)...)
		if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, c.want) {
			t.Fatalf("bench aes %s:\n%s", c.args, got)
		}
	}
}

// TestBenchAESFHEWRatio runs the fhew row at ToyCBS (wide tables: circuit
// bootstraps and vertical packing) and checks the AES/NAND line, whose
// NAND (ToySigned's for a toy set) is timed in the same run.
func TestBenchAESFHEWRatio(t *testing.T) {
	got := runHCC(t, "bench", "aes", "--rows", "fhew", "--fhew-params", "ToyCBS", "--workers", "1", "--nand-rounds", "2")
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "| FHEW (aes128.hdl, LUT-mapped, one block) | ToyCBS (insecure) | 1 |") ||
		!strings.Contains(got, "1 block(s) checked against crypto/aes") {
		t.Fatalf("bench aes:\n%s", got)
	}
	m := regexp.MustCompile(`- AES/NAND \(fhew row, ToyCBS, 1 worker\(s\)\): \S+ / ([0-9.]+) ms = \*\*([0-9]+)\*\* NAND-times of ToySigned \(median of 4 NANDs timed just before and 4 just after`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no AES/NAND line:\n%s", got)
	}
	if nand, _ := strconv.ParseFloat(m[1], 64); !(nand > 0) {
		t.Errorf("NAND %q ms", m[1])
	}
	// 1600 circuit bootstraps alone are ~2 NANDs each: the ratio cannot
	// be below a few thousand unless the NAND or the latency is wrong.
	if ratio, _ := strconv.Atoi(m[2]); ratio < 1000 {
		t.Errorf("AES/NAND %d", ratio)
	}
	if !strings.Contains(got, "- CPU received by the process while the rows ran") {
		t.Errorf("no CPU line:\n%s", got)
	}
	if got := runHCC(t, "bench", "aes", "--rows", "fhew", "--nand-rounds", "-1"); !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, "--nand-rounds must be at least 0") {
		t.Errorf("--nand-rounds -1:\n%s", got)
	}
}

// aesCostlyRe reads the fhew row's note: the evaluation's own count.
var aesCostlyRe = regexp.MustCompile(`the evaluation ran (\d+) circuit bootstraps`)

// TestBenchAESInputRGSW runs the fhew row at ToyCBS without and with
// --input-rgsw: both check their block against crypto/aes, the second
// names itself in the table and the note and runs fewer circuit
// bootstraps for a larger upload; a set without input RGSWs and a run
// without the fhew row refuse the flag before anything is timed.
func TestBenchAESInputRGSW(t *testing.T) {
	args := []string{"bench", "aes", "--rows", "fhew", "--fhew-params", "ToyCBS", "--workers", "2", "--nand-rounds", "0"}
	plain := runHCC(t, args...)
	with := runHCC(t, append(args, "--input-rgsw")...)
	count := func(name, out string) int {
		t.Helper()
		if !strings.HasPrefix(out, "exit 0") || !strings.Contains(out, "1 block(s) checked against crypto/aes") {
			t.Fatalf("bench aes %s:\n%s", name, out)
		}
		m := aesCostlyRe.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("bench aes %s: no circuit bootstrap count:\n%s", name, out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	n0, n1 := count("plain", plain), count("--input-rgsw", with)
	if n1 == 0 || n1 >= n0 {
		t.Errorf("%d circuit bootstraps with --input-rgsw, %d without", n1, n0)
	}
	row := "| FHEW (aes128.hdl, LUT-mapped, one block, client-side input RGSWs) | ToyCBS (insecure) | 1 |"
	if !strings.Contains(with, row) || !strings.Contains(with, "with client-side input RGSWs") ||
		strings.Contains(plain, "input RGSWs") {
		t.Errorf("the report does not say which run it is:\n%s\nwith --input-rgsw:\n%s", plain, with)
	}
	// The upload column: the input RGSWs make the inputs several times larger.
	if u0, u1 := aesUpload(t, plain), aesUpload(t, with); u1 < 4*u0 {
		t.Errorf("upload per block %.0f B with --input-rgsw, %.0f B without", u1, u0)
	}
	// The transciphering key goes without input RGSWs either way.
	keyRe := regexp.MustCompile(`key once: ([0-9.]+ [KMG]?B) \|`)
	if k0, k1 := keyRe.FindStringSubmatch(plain), keyRe.FindStringSubmatch(with); k0 == nil || k1 == nil || k0[1] != k1[1] {
		t.Errorf("key upload %v with --input-rgsw, %v without", k1, k0)
	}
	for _, c := range []struct{ args, want string }{
		{"aes --rows fhew --fhew-params ToySigned --input-rgsw", "ToySigned has no client-side input RGSWs"},
		{"aes --rows byte --input-rgsw", "add fhew to the rows"},
		{"gadgets --input-rgsw", "applies to hcc bench aes"},
	} {
		got := runHCC(t, append([]string{"bench"}, strings.Fields(c.args)...)...)
		if !strings.HasPrefix(got, "exit 1") || !strings.Contains(got, c.want) || strings.Contains(got, "reference NAND") {
			t.Errorf("bench %s:\n%s", c.args, got)
		}
	}
}

// aesUploadRe reads the fhew row's upload per block without
// transciphering (the table's eighth column).
var aesUploadRe = regexp.MustCompile(`\| FHEW [^|]*\|(?:[^|]*\|){6} ([0-9.]+) (B|KB|MB|GB) \|`)

// aesUpload returns the fhew row's upload per block in bytes.
func aesUpload(t *testing.T, out string) float64 {
	t.Helper()
	m := aesUploadRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no upload column in\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v * map[string]float64{"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9}[m[2]]
}
