package hcc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExternalModule builds and runs programs in a module of their own
// (a temporary directory with its own go.mod and a replace directive to
// this checkout), using package hcc alone, as a user's program would:
// testdata/external/roundtrip compiles an HDL string, generates keys,
// writes and reads back keys, the program and ciphertexts, evaluates and
// decrypts a batch on FHEW and on BGV; testdata/external/readme is the
// README's program (the default 128-bit FHEW set). It runs offline: the
// external module gets this module's go.sum, and GOFLAGS=-mod=mod with
// GOPROXY=off resolves every dependency from the module cache that
// building this module filled.
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prog string
		want []string
	}{
		{"roundtrip", []string{"fhew ToySigned: 3 instances", "bgv ToyM257: 3 instances",
			"y = 95 (0x005f)\nz = 0 (0x0)\ny = 127 (0x007f)\nz = 1 (0x1)\ny = -383 (0xfe81)\nz = 0 (0x0)\n"}},
		{"readme", []string{"sum = 300 (0x12c)\n", " bootstraps in "}},
	} {
		t.Run(tc.prog, func(t *testing.T) {
			mod := t.TempDir()
			gomod := "module example.com/hccuser\n\ngo 1.26.0\n\nrequire github.com/hcc-fhe/hcc v0.0.0\n\nreplace github.com/hcc-fhe/hcc => " + root + "\n"
			src, err := os.ReadFile(filepath.Join(root, "testdata", "external", tc.prog, "main.go"))
			if err != nil {
				t.Fatal(err)
			}
			for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": src} {
				if err := os.WriteFile(filepath.Join(mod, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(goBin, "run", ".", filepath.Join(mod, "files"))
			cmd.Dir = mod
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go run in %s: %v\n%s", mod, err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
