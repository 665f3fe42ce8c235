package hcc

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
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
