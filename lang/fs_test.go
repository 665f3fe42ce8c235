package lang

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// TestImportsFS compiles programs whose files come from Options.FS: the
// testdata tree through os.DirFS, and an in-memory tree that exists nowhere
// on disk (so the imports cannot have been read from the working directory).
func TestImportsFS(t *testing.T) {
	dir := os.DirFS("testdata")
	src, err := fs.ReadFile(dir, "imports/main.hdl")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile("imports/main.hdl", src, Options{FS: dir})
	if err != nil {
		t.Fatal(err)
	}
	if out := evalScalars(t, c, map[string]int64{"a": 85}); out["r"] != (85*3+7)&0xff {
		t.Errorf("main(85) = %d, want %d", out["r"], (85*3+7)&0xff)
	}

	mem := fstest.MapFS{
		"prog/lib/ops.hdl": {Data: []byte("import \"stdlib/arith.hdl\";\nimport \"../k.hdl\";\nfn twice(x: u8) -> u8 { return add_ripple8(x, x) ^ K; }\n")},
		"prog/k.hdl":       {Data: []byte("const K = 1;\n")},
	}
	root := []byte("import \"lib/ops.hdl\";\ncircuit m(a: u8) -> (r: u8) { r = twice(a); }\n")
	c, err = Compile("prog/./main.hdl", root, Options{FS: mem})
	if err != nil {
		t.Fatal(err)
	}
	if out := evalScalars(t, c, map[string]int64{"a": 100}); out["r"] != 201 {
		t.Errorf("m(100) = %d, want 201", out["r"])
	}

	// Errors: a missing file wraps fs.ErrNotExist and names the import; a
	// path leaving the FS is invalid; positions use the FS path.
	_, err = Compile("prog/main.hdl", []byte("import \"nope.hdl\";\ncircuit m(a: u8) -> (r: u8) { r = a; }\n"), Options{FS: mem})
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), `prog/main.hdl:1:1: cannot import "nope.hdl"`) {
		t.Errorf("missing import: got %v", err)
	}
	_, err = Compile("prog/main.hdl", []byte("import \"../../up.hdl\";\ncircuit m(a: u8) -> (r: u8) { r = a; }\n"), Options{FS: mem})
	if err == nil || !strings.HasPrefix(err.Error(), `prog/main.hdl:1:1: cannot import "../../up.hdl": it leaves the program's file system`) {
		t.Errorf("import leaving the FS: got %v", err)
	}
	_, err = Compile("prog/main.hdl", []byte("import \"k.hdl\";\ncircuit m(a: u8) -> (r: u8) { r = a + X; }\n"), Options{FS: mem})
	if err == nil || !strings.HasPrefix(err.Error(), "prog/main.hdl:2:39: undefined: X") {
		t.Errorf("error position: got %v", err)
	}
}
