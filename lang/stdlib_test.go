package lang

import (
	"io/fs"
	"testing"

	"github.com/hcc-fhe/hcc/stdlib"
)

// TestStdlibFilesCheck compiles every embedded library file as a root file
// (with a trivial circuit appended), so that each of its functions is
// type-checked and elaborated on fresh inputs.
func TestStdlibFilesCheck(t *testing.T) {
	entries, err := fs.ReadDir(stdlib.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		src, err := fs.ReadFile(stdlib.FS, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, "\ncircuit lang_check(a: bit) -> (r: bit) { r = a; }\n"...)
		for _, style := range styles {
			if _, err := Compile(e.Name(), src, Options{Circuit: "lang_check", Style: style}); err != nil {
				t.Errorf("%s (%v):\n%v", e.Name(), style, err)
			}
		}
		n++
	}
	if n == 0 {
		t.Fatal("stdlib.FS is empty")
	}
}
