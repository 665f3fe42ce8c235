package hcc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
)

// The key files GenerateKeys' results are written to by WriteKeys.
const (
	SecretKeyFile = "secret.key" // the client key, mode 0600
	ServerKeyFile = "eval.key"   // the server key (evaluation keys only)
)

// writeMode says what an existing destination may be replaced by.
type writeMode int

const (
	replaceFile writeMode = iota // replace anything but an hcc key file
	replaceAny                   // replace key files too (forced)
	createOnly                   // refuse any existing path
)

// WriteFile writes data to path atomically: to a temporary file in the same
// directory, synced, then renamed over path, so that a crash or a full disk
// never leaves a truncated file that a later step reads. perm is the new
// file's mode (also when path existed with another one).
//
// An existing hcc key file (secret or evaluation key) is refused, since
// replacing a secret key makes every ciphertext under it undecryptable: use
// WriteFileForce for that. A symbolic link is followed and its target
// replaced atomically; an existing destination that is not a regular file
// (a device such as /dev/null, a FIFO, /dev/stdout) is written to directly,
// never replaced.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, replaceFile)
}

// WriteFileForce is WriteFile that also replaces an existing key file.
func WriteFileForce(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, replaceAny)
}

// CreateFile is WriteFile that refuses to replace an existing path (the
// check and the final link are one atomic step).
func CreateFile(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, createOnly)
}

// destination is where a write to path lands.
type destination struct {
	target string      // the file to replace or create (symbolic links resolved)
	info   os.FileInfo // nil if target does not exist
}

// resolve follows path's symbolic links. A dangling link is an error (its
// target would be created in a directory the caller did not name).
func resolve(path string) (destination, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			to, _ := os.Readlink(path)
			return destination{}, fmt.Errorf("%s is a symbolic link to %s, which does not exist: remove the link or write to another path", path, to)
		}
		return destination{target: path}, nil
	}
	if err != nil {
		return destination{}, err
	}
	if st.IsDir() {
		return destination{}, fmt.Errorf("%s is a directory", path)
	}
	if !st.Mode().IsRegular() {
		return destination{target: path, info: st}, nil // opened directly: the link is followed by open
	}
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return destination{}, err
		}
	}
	return destination{target: target, info: st}, nil
}

// checkReplace refuses to replace an existing key file unless mode allows
// it, and any existing path for createOnly.
func checkReplace(path string, d destination, mode writeMode) error {
	if d.info == nil {
		return nil
	}
	if mode == createOnly {
		return fmt.Errorf("%s exists (refusing to overwrite it)", path)
	}
	if mode == replaceFile && d.info.Mode().IsRegular() {
		if kind, ok := keyFileKind(d.target); ok {
			return fmt.Errorf("%s is %s file: refusing to replace it (write elsewhere, or remove it first if it is no longer needed)", path, kind)
		}
	}
	return nil
}

// keyFileKind reports whether path starts like an hcc key file, reading
// only its header.
func keyFileKind(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	var head [len(keyMagic) + 3]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:len(keyMagic)]) != keyMagic {
		return "", false
	}
	switch fileKind(head[len(keyMagic)+2]) {
	case kindSecretKey:
		return "a secret key", true
	case kindEvalKey:
		return "an evaluation key", true
	}
	return "an hcc key", true
}

func writeAtomic(path string, data []byte, perm os.FileMode, mode writeMode) error {
	d, err := resolve(path)
	if err != nil {
		return err
	}
	if err := checkReplace(path, d, mode); err != nil {
		return err
	}
	if d.info != nil && !d.info.Mode().IsRegular() {
		return writeDirect(path, data)
	}
	dir, base := filepath.Split(d.target)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // no-op after a successful rename
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	if mode != createOnly {
		err = os.Rename(tmpName, d.target)
	} else if err = os.Link(tmpName, d.target); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists (refusing to overwrite it)", path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}

// writeDirect writes data into an existing non-regular file (a device, a
// FIFO, a terminal, a pipe named /dev/stdout): there is no file to replace,
// and renaming over it would destroy the node. The process's own standard
// output and error are written through their descriptors.
func writeDirect(path string, data []byte) error {
	if strings.HasPrefix(path, "/dev/") || strings.HasPrefix(path, "/proc/") {
		if st, err := os.Stat(path); err == nil {
			for _, std := range []*os.File{os.Stdout, os.Stderr} {
				if sst, err := std.Stat(); err == nil && os.SameFile(st, sst) {
					if _, err := std.Write(data); err != nil {
						return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
					}
					return nil
				}
			}
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the temporary file's name from an *fs.PathError.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// CheckWritable reports, before any expensive work, whether WriteFile could
// write path: it is not a directory, not an existing key file, not the same
// file as any of inputs (the files the command reads: writing over one
// loses it), nor as a file an HDL input (.hdl) imports, and its directory
// takes a new file. It leaves nothing behind.
func CheckWritable(path string, inputs ...string) error {
	return checkWritable(path, replaceFile, inputs)
}

func checkWritable(path string, mode writeMode, inputs []string) error {
	d, err := resolve(path)
	if err != nil {
		return err
	}
	if err := checkReplace(path, d, mode); err != nil {
		return err
	}
	if d.info != nil {
		for _, in := range inputs {
			if st, err := os.Stat(in); err == nil && os.SameFile(st, d.info) {
				if in == path {
					return fmt.Errorf("%s is both an input and the output: write the output to another file", path)
				}
				return fmt.Errorf("output %s is the same file as input %s: write the output to another file", path, in)
			}
			if imp, ok := importedAs(in, d.info); ok {
				return fmt.Errorf("output %s is the same file as %s, which %s imports: write the output to another file", path, imp, in)
			}
		}
		if !d.info.Mode().IsRegular() {
			return nil // written directly (a device, a FIFO)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(d.target), ".hcc-check*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}

// importedAs reports whether the HDL source in (a name ending in ".hdl")
// imports, directly or not, the file of status out, and under which name.
// A source that does not load imports nothing here (compiling it reports
// why).
func importedAs(in string, out os.FileInfo) (string, bool) {
	if !strings.HasSuffix(in, ".hdl") {
		return "", false
	}
	files, err := lang.SourceFiles(in)
	if err != nil {
		return "", false
	}
	for _, f := range files[1:] {
		if st, err := os.Stat(f); err == nil && os.SameFile(st, out) {
			return f, true
		}
	}
	return "", false
}

// KeyPaths are the key files in dir.
func KeyPaths(dir string) (secret, server string) {
	return filepath.Join(dir, SecretKeyFile), filepath.Join(dir, ServerKeyFile)
}

// KeyExistsError is the error of CheckKeyDir and WriteKeys for a key file
// that exists when force is false. errors.Is(err, fs.ErrExist) holds.
type KeyExistsError struct {
	Path string // the existing key file
}

// Error says what exists and what to do, in Go terms (the hcc command
// says --force instead).
func (e *KeyExistsError) Error() string {
	return fmt.Sprintf("%s exists: refusing to overwrite it and lose every ciphertext made under it (write the keys elsewhere, or call WriteKeys with force true)", e.Path)
}

// Is makes errors.Is(err, fs.ErrExist) true.
func (e *KeyExistsError) Is(target error) bool { return target == fs.ErrExist }

// CheckKeyDir prepares dir for WriteKeys before any key is generated: it
// creates dir (mode 0700) if missing, checks that it takes new files, and
// refuses existing key files unless force (overwriting a secret key makes
// every ciphertext under it undecryptable) with a *KeyExistsError.
func CheckKeyDir(dir string, force bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	secret, server := KeyPaths(dir)
	for _, p := range []string{secret, server} {
		if _, err := os.Lstat(p); err == nil && !force {
			return &KeyExistsError{Path: p}
		}
		if err := checkWritable(p, replaceAny, nil); err != nil {
			return err
		}
	}
	return nil
}

// WriteKeys writes a key pair into dir (SecretKeyFile with mode 0600,
// ServerKeyFile with 0644), atomically; existing key files are refused
// unless force (*KeyExistsError). It returns the paths and the server key file's size.
func WriteKeys(dir string, ck *ClientKey, sk *ServerKey, force bool) (secret, server string, serverBytes int, err error) {
	if ck == nil || sk == nil {
		return "", "", 0, errors.New("WriteKeys: nil key")
	}
	if err := CheckKeyDir(dir, force); err != nil {
		return "", "", 0, err
	}
	secret, server = KeyPaths(dir)
	sdata, err := ck.MarshalBinary()
	if err != nil {
		return "", "", 0, err
	}
	edata, err := sk.MarshalBinary()
	if err != nil {
		return "", "", 0, err
	}
	write := CreateFile
	if force {
		write = WriteFileForce
	}
	if err := write(secret, sdata, 0o600); err != nil {
		return "", "", 0, err
	}
	if err := write(server, edata, 0o644); err != nil {
		return "", "", 0, err
	}
	return secret, server, len(edata), nil
}

// readFile reads an hcc file (magic says which kind) of at most maxSize
// bytes. Only regular files are read: a device or FIFO (/dev/zero) could
// be endless. A file that does not start with magic is refused after its
// first bytes, whatever its size.
func readFile(path, magic string) ([]byte, error) {
	f, st, err := ir.OpenChecked(path, func(st fs.FileInfo) error { return checkRegular(path, st) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, len(magic))
	n, err := io.ReadFull(f, head)
	if err != nil || string(head) != magic {
		return head[:n], nil // openFile names what it is
	}
	if st.Size() > maxFileSize {
		return nil, fmt.Errorf("%s is %d bytes, more than hcc reads (%d)", path, st.Size(), int64(maxFileSize))
	}
	// The size is the one stat saw; a file growing meanwhile is read up to
	// the limit. The spare MinRead bytes spare ReadFrom a final copy.
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	buf.Write(head)
	if _, err := buf.ReadFrom(io.LimitReader(f, maxFileSize)); err != nil {
		return nil, err
	}
	if buf.Len() > maxFileSize {
		return nil, fmt.Errorf("%s is more than %d bytes, more than hcc reads", path, int64(maxFileSize))
	}
	return buf.Bytes(), nil
}

// checkRegular refuses path, of status st, if it is not a regular file.
func checkRegular(path string, st os.FileInfo) error {
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): hcc reads keys, ciphertexts and programs from regular files only", path, ir.FileKind(st.Mode()))
	}
	return nil
}

// maxFileSize bounds the files hcc reads (BGV evaluation keys at the
// largest sets are a few GB).
const maxFileSize = 64 << 30

// ReadClientKeyFile reads a secret key file. If the file is readable by
// group or others, warning says so (the key is still returned: the caller
// decides whether to print or refuse).
func ReadClientKeyFile(path string) (ck *ClientKey, warning string, err error) {
	data, err := readFile(path, keyMagic)
	if err != nil {
		return nil, "", err
	}
	if ck, err = decodeClientKey(path, data); err != nil {
		return nil, "", err
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		warning = fmt.Sprintf("secret key %s is readable by other users (mode %#o); run chmod 600 %s", path, st.Mode().Perm(), path)
	}
	return ck, warning, nil
}

// ReadServerKeyFile reads a server (evaluation) key file.
func ReadServerKeyFile(path string) (*ServerKey, error) {
	data, err := readFile(path, keyMagic)
	if err != nil {
		return nil, err
	}
	return decodeServerKey(path, data)
}

// ReadCiphertextsFile reads a ciphertext file. Errors name path.
func ReadCiphertextsFile(path string) (*Ciphertexts, error) {
	data, err := readFile(path, ctMagic)
	if err != nil {
		return nil, err
	}
	return decodeCiphertexts(path, data)
}
