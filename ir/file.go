package ir

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReadFile loads a circuit from a .hir file or a Bristol-fashion netlist.
// A file is read as .hir if its name ends in ".hir" or its first line that
// is neither blank nor a '#' comment is "hir 1"; otherwise as Bristol, with
// the circuit named after the file ("aes_128" for aes_128.txt). Errors
// name the path and, for syntax errors, the line (*ParseError).
func ReadFile(path string) (*Circuit, error) {
	data, err := os.ReadFile(path)
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

func looksLikeHIR(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		return strings.Fields(t)[0] == "hir"
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
