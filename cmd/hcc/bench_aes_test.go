package main

import (
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
