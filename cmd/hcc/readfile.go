package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/hcc-fhe/hcc/ir"
)

// Bounds of the files the commands read themselves (the hcc package bounds
// keys, ciphertexts, programs and circuits): without one, a path such as
// /dev/zero or a runaway pipe would grow the process until memory runs out.
const (
	maxSecretFile   = 64 << 10 // --token-file, --aes-key-file: a line of text
	maxTranscipher  = 1 << 30  // transcipher eval's AES-CTR data: 64 Mi records
	maxSubmitUpload = 64 << 30 // submit's evaluation key and ciphertexts (hcc's file bound)
)

// readLimited reads path, refusing more than limit bytes with an error
// naming what the file is, the path and the limit. With regularOnly, a
// device, FIFO or socket is refused before it is opened (opening a FIFO
// blocks); otherwise a pipe works (a secret from <(pass show key)).
func readLimited(path, what string, limit int64, regularOnly bool) ([]byte, error) {
	if regularOnly {
		if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
			if st.IsDir() {
				return nil, fmt.Errorf("%s %s is a directory", what, path)
			}
			return nil, fmt.Errorf("%s %s is not a regular file (%s): it is read from regular files only", what, path, ir.FileKind(st.Mode()))
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > limit {
			return nil, fmt.Errorf("%s %s is %d bytes, more than the %d hcc reads", what, path, st.Size(), limit)
		}
		// Room for the whole file (and the MinRead that ends ReadFrom):
		// growing by doubling would allocate twice a 96 MB key.
		buf.Grow(int(st.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", what, path, err)
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%s %s is more than the %d bytes hcc reads", what, path, limit)
	}
	return buf.Bytes(), nil
}
