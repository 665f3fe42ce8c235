package ir

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultMaxFileBytes is the largest circuit file ReadFile reads: 96 MiB,
// about 3.5 million Bristol gates or .hir nodes. Reading takes about 17
// bytes of memory per byte of file (a million-gate Bristol file of 28 MB
// peaked at 478 MB resident, its .hir form at 484 MB), so the largest file
// peaks near 1.6 GiB, the memory package lang's default budget allows HDL
// elaboration. ReadFileMax reads larger files.
const DefaultMaxFileBytes = 96 << 20

// ReadFile loads a circuit from a .hir file or a Bristol-fashion netlist.
// A file is read as .hir if its name ends in ".hir" or its first line that
// is neither blank nor a '#' comment is "hir 1"; otherwise as Bristol, with
// the circuit named after the file ("aes_128" for aes_128.txt). Errors
// name the path and, for syntax errors, the line (*ParseError). Only
// regular files of at most DefaultMaxFileBytes are read: a device or a
// FIFO (/dev/zero) could be endless, and a larger file could exhaust
// memory; both are refused before anything is parsed.
func ReadFile(path string) (*Circuit, error) {
	return ReadFileMax(path, DefaultMaxFileBytes)
}

// fileMemoryPerByte is the peak memory per byte of file of ReadFile.
const fileMemoryPerByte = 17

// MaxFileBytesFor is the size limit of a circuit file read within a memory
// budget of budget bytes: budget/17, and at least DefaultMaxFileBytes.
func MaxFileBytesFor(budget int64) int64 {
	return max(DefaultMaxFileBytes, budget/fileMemoryPerByte)
}

// ReadFileMax is ReadFile with a size limit of maxBytes (at least 1)
// instead of DefaultMaxFileBytes.
func ReadFileMax(path string, maxBytes int64) (*Circuit, error) {
	if maxBytes < 1 {
		return nil, fmt.Errorf("read %s: size limit %d bytes: want at least 1", path, maxBytes)
	}
	data, err := readBounded(path, maxBytes)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".hir") || looksLikeHIR(data) {
		return ReadHIR(bytes.NewReader(data), path)
	}
	c, err := ReadBristol(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	c.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return c, nil
}

// OpenChecked opens path for reading after check accepts its status, both
// before opening (opening a FIFO blocks until a writer comes, so a reader
// that refuses non-regular files must not open one; a failing stat is left
// to Open to report) and on the opened file (the path may have changed in
// between). The caller closes the file.
func OpenChecked(path string, check func(fs.FileInfo) error) (*os.File, fs.FileInfo, error) {
	if st, err := os.Stat(path); err == nil {
		if err := check(st); err != nil {
			return nil, nil, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = check(st)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// readBounded reads the regular file path if it holds at most maxBytes.
func readBounded(path string, maxBytes int64) ([]byte, error) {
	f, st, err := OpenChecked(path, func(st fs.FileInfo) error { return checkCircuitFile(path, st, maxBytes) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The size is the one stat saw; a file growing meanwhile is read up to
	// one byte past the limit, to tell.
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxBytes+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(buf.Len()) > maxBytes {
		return nil, tooLarge(path, "more than", maxBytes)
	}
	return buf.Bytes(), nil
}

// checkCircuitFile refuses path, of status st, unless it is a regular file
// of at most maxBytes.
func checkCircuitFile(path string, st fs.FileInfo, maxBytes int64) error {
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, not a circuit file", path)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): circuits are read from regular files only", path, FileKind(st.Mode()))
	}
	if st.Size() > maxBytes {
		return tooLarge(path, fmt.Sprintf("%d bytes,", st.Size()), maxBytes)
	}
	return nil
}

func tooLarge(path, size string, maxBytes int64) error {
	return fmt.Errorf("%s is %s more than the limit of %s for a circuit file (reading takes about %d bytes of memory per byte; raise the memory budget to read more: hcc --max-memory, or Source.MemoryBudget or ir.ReadFileMax in Go)",
		path, size, byteCount(maxBytes), fileMemoryPerByte)
}

// byteCount renders n bytes as "96 MiB" when it is a whole number of MiB.
func byteCount(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// FileKind names what a file of mode m that is not a regular file is ("a
// FIFO", "a character device", ...), for the errors of every reader that
// accepts regular files only (ir, lang, the root package, the CLI).
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// looksLikeHIR reports whether the first line of data that is neither
// blank nor a '#' comment starts with the word "hir".
func looksLikeHIR(data []byte) bool {
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		return string(bytes.Fields(t)[0]) == "hir"
	}
	return false
}

// WriteFile writes c to path as .hir text, or as Bristol if the name ends in
// ".txt" or ".bristol".
func WriteFile(path string, c *Circuit) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".bristol") {
		err = WriteBristol(f, c)
	} else {
		err = WriteHIR(f, c)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
