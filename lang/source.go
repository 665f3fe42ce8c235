package lang

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hcc-fhe/hcc/ir"
)

// sourceBytesMemory is the peak memory that parsing, checking and
// elaborating take per byte of HDL source besides the circuit built:
// measured at 340 bytes (1.65 GB resident for 4.8 MB of 100000 small
// functions) and 180 (0.88 GB for 4.8 MB of 200000 constants); 384 leaves
// a margin.
const sourceBytesMemory = 384

// minSourceBytes is the least source a compile may read whatever its
// budget (a tiny budget still reads a real program, and fails where the
// circuit outgrows it).
const minSourceBytes = 256 << 10

// sourceLimit is the most bytes of HDL source (the root file and its
// imports, the embedded standard library aside) a compile within the
// memory budget may read: a larger program is refused before it is parsed,
// a device or an endless file before it is read.
func sourceLimit(budget int64) int64 {
	return max(budget/sourceBytesMemory, minSourceBytes)
}

// sourceBudget tracks the source bytes read against the limit.
type sourceBudget struct {
	budget int64 // the memory budget, for messages
	limit  int64 // sourceLimit(budget)
	used   int64
}

// take accounts for a file of n bytes, or says why it is refused.
func (b *sourceBudget) take(name string, n int64) error {
	if n > b.limit-b.used {
		what := "the"
		if b.used > 0 {
			what = fmt.Sprintf("the %d bytes left of the", b.limit-b.used)
		}
		return fmt.Errorf("%s is %d bytes, more than %s %s of HDL source that the memory budget of %s allows (parsing takes about %d bytes per byte; raise it to read more: hcc --max-memory, or MemoryBudget in Go)",
			name, n, what, formatSource(b.limit), formatBytes(b.budget), sourceBytesMemory)
	}
	b.used += n
	return nil
}

// formatSource renders a source size in KiB or MiB.
func formatSource(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// readOSSource reads the HDL file name from the operating system's file
// system: a regular file only (a device or FIFO could be endless, and
// opening a FIFO blocks), within what is left of b.
func (b *sourceBudget) readOSSource(name string) ([]byte, error) {
	// Stat before opening (a FIFO); a failing stat is left to Open.
	if st, err := os.Stat(name); err == nil {
		if err := b.checkSource(name, st); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return b.readOpen(name, f)
}

// readFSSource is readOSSource for a file of fsys.
func (b *sourceBudget) readFSSource(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return b.readOpen(name, f)
}

// readOpen reads the open file f within b.
func (b *sourceBudget) readOpen(name string, f fs.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := b.checkSource(name, st); err != nil {
		return nil, err
	}
	// A file growing after the stat is read up to one byte past the limit.
	left := b.limit - b.used
	var buf bytes.Buffer
	buf.Grow(int(min(st.Size(), left)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, left+1)); err != nil {
		return nil, err
	}
	if err := b.take(name, int64(buf.Len())); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkSource refuses name, of status st, unless it is a regular file
// that fits in what is left of b.
func (b *sourceBudget) checkSource(name string, st fs.FileInfo) error {
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", name)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): HDL sources are read from regular files only", name, ir.FileKind(st.Mode()))
	}
	if st.Size() > b.limit-b.used {
		return b.take(name, st.Size())
	}
	return nil
}
