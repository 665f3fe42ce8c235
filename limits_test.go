package hcc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
)

// TestLoadCircuitNonRegular: a circuit argument that is a device or a FIFO
// (any name, .hdl or not) is refused by name at once: /dev/zero is endless,
// and opening a FIFO without a writer blocks (IsProgramFile opened it).
func TestLoadCircuitNonRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero or FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "c.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zeroHDL := filepath.Join(dir, "z.hdl")
	if err := os.Symlink("/dev/zero", zeroHDL); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero is not a regular file (a character device): circuits are read from regular files only"},
		{fifo, fifo + " is not a regular file (a FIFO): circuits are read from regular files only"},
		{zeroHDL, "compile: " + zeroHDL + " is not a regular file (a character device): HDL sources are read from regular files only"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := LoadCircuit(File(tc.path), StyleSize)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != tc.want {
				t.Errorf("LoadCircuit(%s) = %v, want %q", tc.path, err, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("LoadCircuit(%s) still blocked after 10 s", tc.path)
		}
		if IsProgramFile(tc.path) {
			t.Errorf("IsProgramFile(%s) = true", tc.path)
		}
	}
}

// TestEvalThreadsLimit: Threads above MaxThreads is refused before anything
// runs (each thread would get its own scratch memory); MaxThreads itself
// runs, and negative values stay refused.
func TestEvalThreadsLimit(t *testing.T) {
	p := mustCompile(t, HDL("circuit c(a: u2, b: u2) -> (y: u2) { y = a & b; }", ""), toyFHEW)
	ck, sk := keysFor(t, p)
	in, err := p.ParseInputs("a=3", "b=1")
	if err != nil {
		t.Fatal(err)
	}
	limit := MaxThreads()
	if want := max(4*runtime.NumCPU(), 16); limit != want {
		t.Fatalf("MaxThreads() = %d, want %d", limit, want)
	}
	for _, tc := range []struct {
		threads int
		want    string
	}{
		{limit + 1, fmt.Sprintf("%d threads is above the limit of %d (MaxThreads: 4 per CPU, at least 16): every thread holds its own scratch memory", limit+1, limit)},
		{1 << 40, fmt.Sprintf("%d threads is above the limit of %d", 1<<40, limit)},
		{-1, "threads must be at least 1, got -1"},
	} {
		cts, err := ck.Encrypt(p, in)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = Eval(context.Background(), p, sk, cts, EvalOptions{Threads: tc.threads})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Threads %d: %v, want %q", tc.threads, err, tc.want)
		}
	}
	cts, err := ck.Encrypt(p, in)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: limit})
	if err != nil {
		t.Fatalf("Threads = MaxThreads: %v", err)
	}
	res, err := ck.Decrypt(p, out)
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0]["y"][0].Int64(); got != 1 {
		t.Errorf("y = %d, want 1", got)
	}
}

// TestKeyExistsError: an existing key file is refused by CheckKeyDir and
// WriteKeys with a *KeyExistsError naming the path and saying what to do
// in Go (the hcc command words it with --force); force overwrites.
func TestKeyExistsError(t *testing.T) {
	p := mustCompile(t, HDL("circuit c(a: u2) -> (y: u2) { y = a; }", ""), toyFHEW)
	ck, sk := keysFor(t, p)
	dir := filepath.Join(t.TempDir(), "keys")
	if _, _, _, err := WriteKeys(dir, ck, sk, false); err != nil {
		t.Fatal(err)
	}
	secret, _ := KeyPaths(dir)
	want := secret + " exists: refusing to overwrite it and lose every ciphertext made under it (write the keys elsewhere, or call WriteKeys with force true)"
	for name, err := range map[string]error{
		"CheckKeyDir": CheckKeyDir(dir, false),
		"WriteKeys":   func() error { _, _, _, err := WriteKeys(dir, ck, sk, false); return err }(),
	} {
		var ke *KeyExistsError
		if !errors.As(err, &ke) || ke.Path != secret || err.Error() != want || !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s: %v (%T), want %q", name, err, err, want)
		}
		if strings.Contains(fmt.Sprint(err), "--force") {
			t.Errorf("%s names a command-line flag: %v", name, err)
		}
	}
	if err := CheckKeyDir(dir, true); err != nil {
		t.Errorf("CheckKeyDir forced: %v", err)
	}
	if _, _, _, err := WriteKeys(dir, ck, sk, true); err != nil {
		t.Errorf("WriteKeys forced: %v", err)
	}
}

// TestCheckWritableImports: an output onto a file that an HDL input imports
// (directly or through another import) is refused like one onto the input
// itself: compiling main.hdl -o lib.hdl used to replace the imported source.
func TestCheckWritableImports(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("lib/y.hdl", "fn g(x: u8) -> u8 { return x; }\n")
	write("lib/x.hdl", "import \"y.hdl\";\nimport \"stdlib/arith.hdl\";\nfn f(x: u8) -> u8 { return g(x); }\n")
	main := write("main.hdl", "import \"lib/x.hdl\";\ncircuit c(a: u8) -> (y: u8) { y = f(a); }\n")
	for _, imp := range []string{"lib/x.hdl", "lib/y.hdl"} {
		out := filepath.Join(dir, imp)
		err := CheckWritable(out, "keys/none.key", main)
		want := fmt.Sprintf("output %s is the same file as %s, which %s imports: write the output to another file", out, out, main)
		if err == nil || err.Error() != want {
			t.Errorf("CheckWritable(%s) = %v\nwant %s", imp, err, want)
		}
	}
	if err := CheckWritable(filepath.Join(dir, "out.hir"), main); err != nil {
		t.Errorf("new output: %v", err)
	}
	if err := CheckWritable(main, main); err == nil || !strings.Contains(err.Error(), "is both an input and the output") {
		t.Errorf("output onto the input: %v", err)
	}
	// A source that does not load protects only itself (compiling it reports why).
	bad := write("bad.hdl", "import \"lib/x.hdl\";\ncircuit {\n")
	if err := CheckWritable(filepath.Join(dir, "lib/x.hdl"), bad); err != nil {
		t.Errorf("unloadable source: %v", err)
	}
}

// TestParseBatchBounds: an endless batch stream stops at MaxBatchInstances
// input sets or MaxBatchBytes, with an error saying so; a line beyond 1 MiB
// is an error naming its line.
func TestParseBatchBounds(t *testing.T) {
	c, err := LoadCircuit(HDL("circuit c(a: u8) -> (y: u8) { y = a; }", ""), StyleSize)
	if err != nil {
		t.Fatal(err)
	}
	endless := &repeatReader{line: []byte("a=1\n")}
	_, err = ParseBatch(c, endless, "b.txt")
	if want := "b.txt:262145: more than 262144 input sets: split the batch into several"; err == nil || err.Error() != want {
		t.Errorf("endless batch: %v, want %q", err, want)
	}
	// Long lines of comments reach the byte bound first.
	comments := &repeatReader{line: []byte("# " + strings.Repeat("x", 1000) + "\n")}
	_, err = ParseBatch(c, comments, "c.txt")
	if want := "c.txt holds more than 64 MiB of input sets: split it into several batches"; err == nil || err.Error() != want {
		t.Errorf("endless comments: %v, want %q", err, want)
	}
	if comments.n > MaxBatchBytes+1<<20 {
		t.Errorf("read %d bytes of an endless batch", comments.n)
	}
	long := "a=1\n# " + strings.Repeat("x", 1<<20) + "\na=2\n"
	_, err = ParseBatch(c, strings.NewReader(long), "l.txt")
	if want := "l.txt:2: line longer than 1 MiB"; err == nil || err.Error() != want {
		t.Errorf("long line: %v, want %q", err, want)
	}
	b, err := ParseBatch(c, strings.NewReader("a=1\n\n# c\na=2\n"), "ok.txt")
	if err != nil || len(b.Values) != 2 || b.Lines[1] != 4 {
		t.Errorf("small batch: %+v, %v", b, err)
	}
}

// repeatReader is an endless stream of line, counting the bytes read.
type repeatReader struct {
	line []byte
	n    int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.line[(r.n+i)%len(r.line)]
	}
	r.n += len(p)
	return len(p), nil
}

// TestCircuitFileBudget: Source.MemoryBudget sets the size limit of a .hir
// or Bristol file (ir.MaxFileBytesFor): a file over the default limit is
// refused, naming --max-memory, and read under a larger budget.
func TestCircuitFileBudget(t *testing.T) {
	if got := ir.MaxFileBytesFor(lang.DefaultMemoryBudget); got != ir.DefaultMaxFileBytes {
		t.Fatalf("MaxFileBytesFor(default budget) = %d, want the default %d", got, ir.DefaultMaxFileBytes)
	}
	if got := ir.MaxFileBytesFor(17 << 30); got != 1<<30 {
		t.Fatalf("MaxFileBytesFor(17 GiB) = %d, want 1 GiB", got)
	}
	// A valid .hir file padded with a comment to just over the default
	// limit (written sparse-free but only once: 96 MiB of spaces).
	path := filepath.Join(t.TempDir(), "big.hir")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	hir := "hir 1\ncircuit c\ninput a: bit\noutput o: bit\n%0 = INPUT a 0\nbits o = %0\n"
	pad := "#" + strings.Repeat(" ", 1<<20-2) + "\n"
	if _, err := f.WriteString(hir); err != nil {
		t.Fatal(err)
	}
	for range ir.DefaultMaxFileBytes >> 20 {
		if _, err := f.WriteString(pad); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	_, err = LoadCircuit(File(path), StyleSize)
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 96 MiB for a circuit file") || !strings.Contains(err.Error(), "hcc --max-memory") {
		t.Fatalf("over the default limit: %v", err)
	}
	src := File(path)
	src.MemoryBudget = 2 * 17 * ir.DefaultMaxFileBytes
	if c, err := LoadCircuit(src, StyleSize); err != nil || c.Name != "c" {
		t.Fatalf("under twice the budget: %v", err)
	}
	src.MemoryBudget = -1
	if _, err := LoadCircuit(src, StyleSize); err == nil || !strings.Contains(err.Error(), "memory budget -1 bytes is negative") {
		t.Fatalf("negative budget: %v", err)
	}
}
