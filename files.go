package hcc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The key files GenerateKeys' results are written to by WriteKeys.
const (
	SecretKeyFile = "secret.key" // the client key, mode 0600
	ServerKeyFile = "eval.key"   // the server key (evaluation keys only)
)

// WriteFile writes data to path atomically: to a temporary file in the same
// directory, synced, then renamed over path, so that a crash or a full disk
// never leaves a truncated file that a later step reads. perm is the new
// file's mode (also when path existed with another one).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

// CreateFile is WriteFile that refuses to replace an existing path (the
// check and the final link are one atomic step).
func CreateFile(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, false)
}

func writeAtomic(path string, data []byte, perm os.FileMode, overwrite bool) error {
	dir, base := filepath.Split(path)
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
	if overwrite {
		err = os.Rename(tmpName, path)
	} else if err = os.Link(tmpName, path); errors.Is(err, fs.ErrExist) {
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
// create path: its directory exists and takes a new file, and path is not
// a directory. It leaves nothing behind.
func CheckWritable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".hcc-check*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}

// KeyPaths are the key files in dir.
func KeyPaths(dir string) (secret, server string) {
	return filepath.Join(dir, SecretKeyFile), filepath.Join(dir, ServerKeyFile)
}

// CheckKeyDir prepares dir for WriteKeys before any key is generated: it
// creates dir (mode 0700) if missing, checks that it takes new files, and
// refuses existing key files unless force (overwriting a secret key makes
// every ciphertext under it undecryptable).
func CheckKeyDir(dir string, force bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	secret, server := KeyPaths(dir)
	for _, p := range []string{secret, server} {
		if _, err := os.Lstat(p); err == nil && !force {
			return fmt.Errorf("%s exists (pass --force to overwrite it and lose every ciphertext made under it)", p)
		}
		if err := CheckWritable(p); err != nil {
			return err
		}
	}
	return nil
}

// WriteKeys writes a key pair into dir (SecretKeyFile with mode 0600,
// ServerKeyFile with 0644), atomically; existing key files are refused
// unless force. It returns the paths and the server key file's size.
func WriteKeys(dir string, ck *ClientKey, sk *ServerKey, force bool) (secret, server string, serverBytes int, err error) {
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
		write = WriteFile
	}
	if err := write(secret, sdata, 0o600); err != nil {
		return "", "", 0, err
	}
	if err := write(server, edata, 0o644); err != nil {
		return "", "", 0, err
	}
	return secret, server, len(edata), nil
}

// ReadClientKeyFile reads a secret key file. If the file is readable by
// group or others, warning says so (the key is still returned: the caller
// decides whether to print or refuse).
func ReadClientKeyFile(path string) (ck *ClientKey, warning string, err error) {
	data, err := os.ReadFile(path)
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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeServerKey(path, data)
}

// ReadCiphertextsFile reads a ciphertext file. Errors name path.
func ReadCiphertextsFile(path string) (*Ciphertexts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeCiphertexts(path, data)
}
