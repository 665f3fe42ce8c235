package lang

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

const tinyCircuit = "circuit c(a: u8) -> (y: u8) { y = a; }\n"

// TestImportNonRegular: importing a device or a FIFO is refused at the
// import, before any byte is read (/dev/zero is endless; opening a FIFO
// blocks), and so is compiling one.
func TestImportNonRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero or FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.hdl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "main.hdl")
	for _, tc := range []struct{ imp, want string }{
		{"/dev/zero", root + `:2:3: cannot import "/dev/zero": /dev/zero is not a regular file (a character device): HDL sources are read from regular files only`},
		{"f.hdl", root + `:2:3: cannot import "f.hdl": ` + fifo + ` is not a regular file (a FIFO): HDL sources are read from regular files only`},
		{".", root + `:2:3: cannot import ".": ` + dir + ` is a directory`},
	} {
		_, err := Compile(root, []byte("\n  import \""+tc.imp+"\";\n"+tinyCircuit), Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want+"\n") {
			t.Errorf("import %q: got %v\nwant %s", tc.imp, err, tc.want)
		}
	}
	for _, path := range []string{"/dev/zero", fifo} {
		_, err := CompileFile(path, Options{})
		if err == nil || !strings.Contains(err.Error(), path+" is not a regular file") {
			t.Errorf("CompileFile(%s) = %v", path, err)
		}
	}
}

// TestSourceLimit: the program's sources must fit the memory budget at
// sourceBytesMemory bytes per byte (at least minSourceBytes): a root file or
// an import beyond it is refused before it is parsed, naming the file, the
// limit and how to raise it; a file imported twice counts once.
func TestSourceLimit(t *testing.T) {
	budget := int64(128 << 20) // 341 KiB of source
	limit := sourceLimit(budget)
	if limit != 349525 {
		t.Fatalf("sourceLimit(128 MiB) = %d", limit)
	}
	if got := sourceLimit(1 << 20); got != minSourceBytes {
		t.Fatalf("sourceLimit(1 MiB) = %d, want the floor %d", got, minSourceBytes)
	}
	pad := func(n int) string { return strings.Repeat("// padding\n", n/11) }

	big := []byte(pad(int(limit)+100) + tinyCircuit)
	_, err := Compile("big.hdl", big, Options{MemoryBudget: budget})
	want := "big.hdl is 349663 bytes, more than the 341 KiB of HDL source that the memory budget of 128 MiB allows (parsing takes about 384 bytes per byte; raise it to read more: hcc --max-memory, or MemoryBudget in Go)"
	if err == nil || err.Error() != want {
		t.Errorf("root over the limit: %v\nwant %s", err, want)
	}
	if _, err := Compile("big.hdl", big, Options{MemoryBudget: 2 * budget}); err != nil {
		t.Errorf("twice the budget: %v", err)
	}

	// d.hdl (200 KiB) is imported by both b.hdl and c.hdl: read twice,
	// counted once (twice would exceed the limit).
	mem := fstest.MapFS{
		"p/b.hdl":   {Data: []byte("import \"d.hdl\";\nfn fb(x: u8) -> u8 { return x; }\n")},
		"p/c.hdl":   {Data: []byte("import \"d.hdl\";\nfn fc(x: u8) -> u8 { return x; }\n")},
		"p/d.hdl":   {Data: []byte(pad(200<<10) + "fn fd(x: u8) -> u8 { return x; }\n")},
		"p/big.hdl": {Data: []byte(pad(200<<10) + "fn fbig(x: u8) -> u8 { return x; }\n")},
	}
	root := "import \"b.hdl\";\nimport \"c.hdl\";\ncircuit m(a: u8) -> (y: u8) { y = fb(fc(fd(a))); }\n"
	if _, err := Compile("p/main.hdl", []byte(root), Options{FS: mem, MemoryBudget: budget}); err != nil {
		t.Errorf("diamond import: %v", err)
	}
	// A second 200 KiB file does not fit in what is left.
	_, err = Compile("p/main.hdl", []byte("import \"d.hdl\";\n  import \"big.hdl\";\n"+tinyCircuit), Options{FS: mem, MemoryBudget: budget})
	want = `p/main.hdl:2:3: cannot import "big.hdl": p/big.hdl is 204833 bytes, more than the 144619 bytes left of the 341 KiB of HDL source that the memory budget of 128 MiB allows`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("import over what is left: %v\nwant %s", err, want)
	}

	// The same from the operating system's file system.
	dir := t.TempDir()
	for name, f := range mem {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main := filepath.Join(dir, "p", "main.hdl")
	if err := os.WriteFile(main, []byte(root), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CompileFile(main, Options{MemoryBudget: budget}); err != nil {
		t.Errorf("diamond import from files: %v", err)
	}
	bigFile := filepath.Join(dir, "p", "big2.hdl")
	if err := os.WriteFile(bigFile, big, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = CompileFile(bigFile, Options{MemoryBudget: budget})
	if err == nil || !strings.HasPrefix(err.Error(), "compile: "+bigFile+" is 349663 bytes, more than the 341 KiB of HDL source") {
		t.Errorf("CompileFile over the limit: %v", err)
	}
	if _, err := CompileFile(filepath.Join(dir, "none.hdl"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}
