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
