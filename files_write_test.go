package hcc

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeKeyFile writes the header of an hcc key file of kind (only the
// header: the replacement check reads no further).
func fakeKeyFile(t *testing.T, path string, kind fileKind) []byte {
	t.Helper()
	data := append([]byte(keyMagic), 0, 0, byte(kind))
	binary.LittleEndian.PutUint16(data[len(keyMagic):], keyVersion)
	data = append(data, "rest of the key"...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return data
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err, p)
		}
	}
}

func wantContent(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(want) {
		t.Fatalf("%s holds %q (%v), want %q", path, got, err, want)
	}
}

// TestWriteFileKeepsKeys: WriteFile and CheckWritable refuse to replace
// either kind of key file, also through a symbolic link; WriteFileForce
// replaces it; other files are replaced as before.
func TestWriteFileKeepsKeys(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []fileKind{kindSecretKey, kindEvalKey} {
		key := filepath.Join(dir, fmt.Sprintf("key%d", kind))
		old := fakeKeyFile(t, key, kind)
		link := key + ".link"
		if err := os.Symlink(filepath.Base(key), link); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{key, link} {
			wantErr(t, WriteFile(p, []byte("outputs"), 0o644), p, kind.String(), "refusing to replace")
			wantErr(t, CheckWritable(p), p, kind.String())
			wantContent(t, key, old)
		}
		if err := WriteFileForce(key, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		wantContent(t, key, []byte("new"))
	}
	plain := filepath.Join(dir, "out.ct")
	for _, content := range []string{"one", "two"} {
		if err := CheckWritable(plain); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(plain, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		wantContent(t, plain, []byte(content))
	}
}

// TestCheckWritableInputs: an output that is the same file as an input
// (same name, another name for it, a hard or symbolic link) is refused.
func TestCheckWritableInputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ct")
	if err := os.WriteFile(in, []byte("inputs"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard, soft := filepath.Join(dir, "hard.ct"), filepath.Join(dir, "soft.ct")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in.ct", soft); err != nil {
		t.Fatal(err)
	}
	wantErr(t, CheckWritable(in, "prog.hcp", in), in, "both an input and the output")
	for _, out := range []string{hard, soft, dir + "/./in.ct"} {
		wantErr(t, CheckWritable(out, in), out, "same file as input "+in)
	}
	if err := CheckWritable(filepath.Join(dir, "out.ct"), in, filepath.Join(dir, "missing")); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFileSymlink: the link stays, its target is replaced; a dangling
// link is refused.
func TestWriteFileSymlink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(sub, "target.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", st.Mode(), err)
	}
	wantContent(t, target, []byte("new"))
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	wantErr(t, WriteFile(dangling, []byte("x"), 0o644), dangling, "does not exist")
	wantErr(t, CheckWritable(dangling), dangling, "does not exist")
}

// TestWriteFileFIFO: the FIFO is written into, not replaced.
func TestWriteFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := CheckWritable(fifo); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(fifo, []byte("through the pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("FIFO replaced: %v %v", st.Mode(), err)
	}
	// Reading refuses it before opening (which would block).
	_, err := ReadCiphertextsFile(fifo)
	wantErr(t, err, fifo, "not a regular file (a FIFO)")
}

// TestWriteFileDevice: a character device (a private copy of /dev/null
// made with mknod, root only) stays a device.
func TestWriteFileDevice(t *testing.T) {
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
	if err := CheckWritable(dev); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dev, []byte("discarded"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(dev); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("device replaced: %v %v", st.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dev))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

// TestReadFileBounded: an endless device is refused at once, and a regular
// file of another kind after its magic bytes.
func TestReadFileBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadCiphertextsFile("/dev/zero")
	wantErr(t, err, "/dev/zero", "not a regular file (a character device)")
	_, err = ReadServerKeyFile("/dev/zero")
	wantErr(t, err, "/dev/zero", "not a regular file")
	_, _, err = ReadClientKeyFile("/dev/zero")
	wantErr(t, err, "/dev/zero", "not a regular file")
	_, err = ReadProgramFile("/dev/zero")
	wantErr(t, err, "/dev/zero", "not a regular file")
	_, err = ReadProgramFile(t.TempDir())
	wantErr(t, err, "is a directory")
	key := filepath.Join(t.TempDir(), "secret.key")
	fakeKeyFile(t, key, kindSecretKey)
	_, err = ReadCiphertextsFile(key)
	wantErr(t, err, key, "is a key file, not an hcc ciphertext file")
}
