package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadLimited: the files the commands read themselves are bounded: an
// endless device gives an error naming it and the limit instead of
// exhausting memory; regularOnly refuses devices and FIFOs before opening
// them; a FIFO is read when allowed (secrets from a pipe).
func TestReadLimited(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := readLimited("/dev/zero", "token file", 1024, false)
	if want := "token file /dev/zero is more than the 1024 bytes hcc reads"; err == nil || err.Error() != want {
		t.Errorf("endless device: %v, want %q", err, want)
	}
	_, err = readLimited("/dev/zero", "evaluation key", 1024, true)
	if want := "evaluation key /dev/zero is not a regular file (a character device): it is read from regular files only"; err == nil || err.Error() != want {
		t.Errorf("regular only: %v, want %q", err, want)
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2000), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = readLimited(big, "AES key file", 1024, false)
	if err == nil || !strings.HasSuffix(err.Error(), "big is 2000 bytes, more than the 1024 hcc reads") {
		t.Errorf("large file: %v", err)
	}
	if data, err := readLimited(big, "AES key file", 2000, true); err != nil || len(data) != 2000 {
		t.Errorf("file at the limit: %d bytes, %v", len(data), err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readLimited(fifo, "ciphertext file", 1024, true); err == nil || !strings.Contains(err.Error(), "is not a regular file (a FIFO)") {
		t.Errorf("FIFO, regular only: %v", err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.WriteString("secret\n")
			f.Close()
		}
	}()
	if data, err := readLimited(fifo, "token file", 1024, false); err != nil || string(data) != "secret\n" {
		t.Errorf("FIFO allowed: %q, %v", data, err)
	}
}
