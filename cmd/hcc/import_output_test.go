package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputOntoImport: compile, export-bristol, export-blif and dot refuse
// an -o that is a file the HDL input imports, and leave it as it was
// (compile main.hdl -o lib.hdl replaced the imported source).
func TestOutputOntoImport(t *testing.T) {
	dir := t.TempDir()
	lib := "fn f(x: u8) -> u8 { return x; }\n"
	if err := os.WriteFile(filepath.Join(dir, "lib.hdl"), []byte(lib), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.hdl"), []byte("import \"lib.hdl\";\ncircuit c(a: u8) -> (y: u8) { y = f(a); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"compile", "export-bristol", "export-blif", "dot"} {
		got := runWorkflow(t, dir, cmd, "TMP/main.hdl", "-o", "TMP/lib.hdl")
		want := "hcc: " + cmd + ": output TMP/lib.hdl is the same file as TMP/lib.hdl, which TMP/main.hdl imports: write the output to another file\n"
		if !strings.HasPrefix(got, "exit 1\n") || !strings.HasSuffix(got, want) {
			t.Errorf("hcc %s -o onto an import:\n%s\nwant it to end in %s", cmd, got, want)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "lib.hdl")); err != nil || string(data) != lib {
		t.Errorf("lib.hdl changed: %q, %v", data, err)
	}
}
