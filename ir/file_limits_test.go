package ir

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// smallHIR is a valid two-node circuit in .hir text.
const smallHIR = "hir 1\ncircuit c\ninput a: bit\noutput o: bit\n%0 = INPUT a 0\n%1 = NOT %0\nbits o = %1\n"

// TestReadFileRefusesNonRegular: devices, FIFOs and directories are refused
// by name before any byte is read (/dev/zero is endless; opening a FIFO
// without a writer would block forever).
func TestReadFileRefusesNonRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero or FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "c.hir")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero is not a regular file (a character device): circuits are read from regular files only"},
		{fifo, fifo + " is not a regular file (a FIFO): circuits are read from regular files only"},
		{dir, dir + " is a directory, not a circuit file"},
	} {
		_, err := ReadFile(tc.path)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ReadFile(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
}

// TestReadFileSizeLimit: a file over the limit is refused from its size
// alone (a sparse file of 97 MiB costs nothing to make), with the file, the
// limit and the way to raise it in the message; ReadFileMax takes another
// limit.
func TestReadFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(DefaultMaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadFile(big)
	want := big + " is 100663297 bytes, more than the limit of 96 MiB for a circuit file (reading takes about 17 bytes of memory per byte; raise the memory budget to read more: hcc --max-memory, or Source.MemoryBudget or ir.ReadFileMax in Go)"
	if err == nil || err.Error() != want {
		t.Fatalf("ReadFile(97 MiB) = %v, want %q", err, want)
	}

	small := filepath.Join(dir, "c.hir")
	if err := os.WriteFile(small, []byte(smallHIR), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFileMax(small, int64(len(smallHIR))); err != nil {
		t.Fatalf("ReadFileMax at exactly the size: %v", err)
	}
	_, err = ReadFileMax(small, int64(len(smallHIR))-1)
	if err == nil || !strings.Contains(err.Error(), "is 82 bytes, more than the limit of 81 bytes for a circuit file") {
		t.Fatalf("ReadFileMax below the size = %v", err)
	}
	if _, err := ReadFileMax(small, 0); err == nil || !strings.Contains(err.Error(), "size limit 0 bytes: want at least 1") {
		t.Fatalf("ReadFileMax(0) = %v", err)
	}
}

// TestReadFileLongFirstLine: a .hir file whose first line is a comment
// longer than bufio.Scanner's default token is still recognised as .hir.
func TestReadFileLongFirstLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.circuit")
	text := "# " + strings.Repeat("x", 100<<10) + "\n" + smallHIR
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(p)
	if err != nil || c.Name != "c" {
		t.Fatalf("ReadFile = %v, %v; want circuit c", c, err)
	}
}

// endless is an io.Reader of b repeated forever (/dev/zero as a stream).
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestReadLongLines: a line beyond the readers' bound is an error naming
// the line, not a silent truncation or unbounded growth (an endless line
// from a stream).
func TestReadLongLines(t *testing.T) {
	_, err := ReadBristol(io.MultiReader(strings.NewReader("1 3\n"), endless('7')), "s.txt")
	if want := "s.txt:2: line longer than 16 MiB (not a Bristol file?)"; err == nil || err.Error() != want {
		t.Errorf("ReadBristol(endless line) = %v, want %q", err, want)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("error %T is not a *ParseError", err)
	}
	_, err = readHIR(io.MultiReader(strings.NewReader("hir 1\n"), endless(' ')), "s.hir", 1<<20)
	if want := "s.hir:2: line longer than 1 MiB (not a .hir file?)"; err == nil || err.Error() != want {
		t.Errorf("readHIR(endless line) = %v, want %q", err, want)
	}
	// A line of exactly the limit (its newline included) still reads.
	line := "# " + strings.Repeat("x", 1<<10-3) + "\n"
	if _, err := readHIR(strings.NewReader(line+smallHIR), "ok.hir", 1<<10); err != nil {
		t.Errorf("line at the limit: %v", err)
	}
	if _, err := readHIR(strings.NewReader("#"+line+smallHIR), "long.hir", 1<<10); err == nil || !strings.Contains(err.Error(), "long.hir:1: line longer than 1024 bytes") {
		t.Errorf("line one byte over the limit: %v", err)
	}
}

// TestReadLineChunks: readLine joins lines longer than the bufio buffer.
func TestReadLineChunks(t *testing.T) {
	long := strings.Repeat("ab", 5000)
	br := bufio.NewReaderSize(strings.NewReader(long+"\nx"), 16)
	if got, err := readLine(br, 1<<20); got != long+"\n" || err != nil {
		t.Fatalf("readLine = %d bytes, %v", len(got), err)
	}
	if got, err := readLine(br, 1<<20); got != "x" || err != io.EOF {
		t.Fatalf("last line = %q, %v", got, err)
	}
}
