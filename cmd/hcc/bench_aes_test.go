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

// aesCostlyRe reads an fhew row's note: the evaluation's own count.
var aesCostlyRe = regexp.MustCompile(`the evaluation ran (\d+) circuit bootstraps( with client-side input RGSWs)?`)

// aesCompareRe reads the comparison line of the two fhew rows.
var aesCompareRe = regexp.MustCompile(`- input RGSWs \(the two fhew rows, ToyCBS, one after the other in this run\): (\d+) -> (\d+) circuit bootstraps, latency \S+ -> \S+ = ([0-9.]+)x, the evaluation's CPU [0-9.]+ s -> [0-9.]+ s = \*\*([0-9.]+)x\*\*, upload per block ([0-9.]+ [KMG]?B) -> ([0-9.]+ [KMG]?B) \(`)

// TestBenchAESInputRGSW runs the fhew row at ToyCBS with --input-rgsw:
// two rows, without and then with input RGSWs, both checked against
// crypto/aes, the second named so in the table and its note, with fewer
// circuit bootstraps for a larger upload, and a line comparing them that
// agrees with the rows; a set without input RGSWs, a run without the fhew
// row and the other benchmarks refuse the flag before anything is timed.
func TestBenchAESInputRGSW(t *testing.T) {
	got := runHCC(t, "bench", "aes", "--rows", "fhew", "--fhew-params", "ToyCBS", "--workers", "2", "--nand-rounds", "1", "--input-rgsw")
	if !strings.HasPrefix(got, "exit 0") || strings.Count(got, "1 block(s) checked against crypto/aes") != 2 {
		t.Fatalf("bench aes --input-rgsw:\n%s", got)
	}
	for _, row := range []string{"| FHEW (aes128.hdl, LUT-mapped, one block) | ToyCBS (insecure) | 1 |",
		"| FHEW (aes128.hdl, LUT-mapped, one block, client-side input RGSWs) | ToyCBS (insecure) | 1 |"} {
		if !strings.Contains(got, row) {
			t.Errorf("no row %q:\n%s", row, got)
		}
	}
	notes := aesCostlyRe.FindAllStringSubmatch(got, -1)
	if len(notes) != 2 || notes[0][2] != "" || notes[1][2] == "" {
		t.Fatalf("want the notes of a plain and an input-RGSW row, in that order: %q\n%s", notes, got)
	}
	n0, _ := strconv.Atoi(notes[0][1])
	n1, _ := strconv.Atoi(notes[1][1])
	if n1 == 0 || n1 >= n0 {
		t.Errorf("%d circuit bootstraps with input RGSWs, %d without", n1, n0)
	}
	m := aesCompareRe.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no comparison line:\n%s", got)
	}
	if m[1] != notes[0][1] || m[2] != notes[1][1] {
		t.Errorf("comparison %s -> %s, rows %s and %s", m[1], m[2], notes[0][1], notes[1][1])
	}
	for _, x := range m[3:5] {
		if r, _ := strconv.ParseFloat(x, 64); !(r > 0) {
			t.Errorf("ratio %q in %s", x, m[0])
		}
	}
	// The upload column: the input RGSWs make the inputs several times larger.
	ups := aesUploadRe.FindAllStringSubmatch(got, -1)
	if len(ups) != 2 {
		t.Fatalf("upload columns %q", ups)
	}
	if u0, u1 := aesBytes(ups[0][1], ups[0][2]), aesBytes(ups[1][1], ups[1][2]); u1 < 4*u0 || m[5] != ups[0][1]+" "+ups[0][2] || m[6] != ups[1][1]+" "+ups[1][2] {
		t.Errorf("upload per block %.0f B with input RGSWs, %.0f B without; comparison %s -> %s", u1, u0, m[5], m[6])
	}
	// The transciphering key goes without input RGSWs either way.
	keys := regexp.MustCompile(`key once: ([0-9.]+ [KMG]?B) \|`).FindAllStringSubmatch(got, -1)
	if len(keys) != 2 || keys[0][1] != keys[1][1] {
		t.Errorf("key uploads %q", keys)
	}
	if strings.Count(got, "AES/NAND (fhew row") != 2 || strings.Count(got, "- CPU received by the process") != 1 {
		t.Errorf("want an AES/NAND line per fhew row and one CPU line:\n%s", got)
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

// aesUploadRe reads an fhew row's upload per block without
// transciphering (the table's eighth column).
var aesUploadRe = regexp.MustCompile(`\| FHEW [^|]*\|(?:[^|]*\|){6} ([0-9.]+) (B|KB|MB|GB) \|`)

// aesBytes is a FormatBytes figure in bytes.
func aesBytes(v, unit string) float64 {
	f, _ := strconv.ParseFloat(v, 64)
	return f * map[string]float64{"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
}
