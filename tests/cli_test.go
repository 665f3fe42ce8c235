package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/internal/testenv"
)

// buildHCC builds cmd/hcc into a temporary directory and returns its path.
func buildHCC(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hcc")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/hcc").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/hcc: %v\n%s", err, out)
	}
	return bin
}

// TestCLIBinary runs the built hcc as a user would: the README's AES command
// prints the FIPS-197 ciphertext, and errors exit non-zero with one
// "hcc: ..." line on stderr.
func TestCLIBinary(t *testing.T) {
	bin := buildHCC(t)
	aes := filepath.Join(sharedCircuits(t), "aes_128.txt")
	cmd := exec.Command(bin, "sim", aes,
		"--in", "in0=0x000102030405060708090a0b0c0d0e0f",
		"--in", "in1=0x00112233445566778899aabbccddeeff")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hcc sim: %v", err)
	}
	if want := "out0 = 140591190147677442632770771134392354138 (0x69c4e0d86a7b0430d8cdb78070b4c55a)\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}

	for _, args := range [][]string{
		{"sim", aes, "--in", "in0=1"},
		{"sim", aes, "--in", "in0=1", "--in", "in1=0x1" + strings.Repeat("0", 32)},
		{"stats", "no-such-file.hir"},
		{"frobnicate"},
	} {
		cmd := exec.Command(bin, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
			t.Errorf("hcc %v: got %v, want a non-zero exit", args, err)
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "hcc: ") {
			t.Errorf("hcc %v: stderr %q, want one hcc: line", args, stderr.String())
		}
	}
}

// binRunner returns a function that runs the hcc binary bin with args and
// returns its stdout, stderr and exit code (failing t if it cannot start).
func binRunner(t *testing.T, bin string) func(args ...string) (stdout, stderr string, code int) {
	return func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("hcc %v: %v", args, err)
		}
		return o.String(), e.String(), code
	}
}

// sharedCircuits is shared/circuits (see testenv.SharedCircuits).
func sharedCircuits(t *testing.T) string { return testenv.SharedCircuits(t) }
