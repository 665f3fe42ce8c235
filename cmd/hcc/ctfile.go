package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hcc-fhe/hcc/ir"
)

// The workflow's files. Every file is
//
//	magic (8 bytes) | version u16 | kind u8 | backend | parameter set |
//	key id (16 bytes) | body | SHA-256 of everything before
//
// (little endian; strings are u16-length-prefixed). The key id is the first
// 16 bytes of SHA-256 of the serialised evaluation key; keygen writes it into
// both key files, encrypt and eval copy it into ciphertext files, so that a
// ciphertext and a key that do not belong together are told apart before any
// decryption (an LWE ciphertext decrypts to noise, not to an error, under a
// wrong key).
//
// Key files: the body is the backend's own key encoding (for FHEW
// fhew.SecretKey / EvaluationKey.MarshalBinary, for BGV
// bgv.Params.MarshalSecretKey / MarshalEvaluationKeys; each itself
// checksummed and bound to the parameter set), u64-length-prefixed.
//
// Ciphertext files: the body is the circuit hash (32 bytes, circuitHash),
// the circuit name, the layout of the buses the ciphertexts encrypt (inputs
// for kind ctInputs, outputs for ctOutputs: count u32, then per bus name,
// width u32, signed u8, dims count u8, dims u32...), the instance count u32
// (0: one input set, in every slot of a packed backend; n: slots 0..n-1 hold
// n different input sets, hcc encrypt --batch), then the ciphertext size
// u32, the count u32 and the ciphertexts (the backend's encoding, one per
// input or output bit, in the layout's bit order; all of one size, so a BGV
// evaluator brings its outputs to one level).

const (
	keyMagic   = "HCCKEY\x00\x00"
	ctMagic    = "HCCCT\x00\x00\x00"
	keyVersion = 1
	// ctVersion 2: ciphertext files record the instance count.
	ctVersion = 2
)

// fileKind says what a workflow file holds.
type fileKind uint8

const (
	kindSecretKey fileKind = 1
	kindEvalKey   fileKind = 2
	ctInputs      fileKind = 3
	ctOutputs     fileKind = 4
)

func (k fileKind) String() string {
	switch k {
	case kindSecretKey:
		return "a secret key"
	case kindEvalKey:
		return "an evaluation key"
	case ctInputs:
		return "encrypted inputs"
	case ctOutputs:
		return "encrypted outputs"
	}
	return fmt.Sprintf("an unknown kind (%d)", uint8(k))
}

// keyID identifies a key pair.
type keyID [16]byte

func (id keyID) String() string { return hex.EncodeToString(id[:8]) }

// fileHeader is the part every workflow file starts with.
type fileHeader struct {
	kind    fileKind
	backend string
	params  string
	key     keyID
}

// keyFile is a secret or evaluation key file.
type keyFile struct {
	fileHeader
	body []byte // the backend's key encoding
}

// ctFile is a file of encrypted inputs or outputs.
type ctFile struct {
	fileHeader
	circuitHash [32]byte
	circuitName string
	layout      []ir.Bus // Name, Width, Signed, Dims (no Bits)
	instances   int      // 0: one input set (in every slot); n: n sets in slots 0..n-1
	ctSize      int
	cts         [][]byte
}

// circuitHash identifies a circuit's function and interface: SHA-256 over
// the input and output buses (names, types, driving nodes) and every node
// (op, table, bus bit, fanins). Source positions and the circuit name are
// left out, so the same circuit loaded from another path, or a Bristol file
// under another name, hashes the same.
func circuitHash(c *ir.Circuit) [32]byte {
	h := sha256.New()
	var buf []byte
	le := binary.LittleEndian
	putBuses := func(bs []ir.Bus) {
		buf = le.AppendUint32(buf, uint32(len(bs)))
		for i := range bs {
			b := &bs[i]
			buf = appendString(buf, b.Name)
			buf = le.AppendUint32(buf, uint32(b.Width))
			buf = append(buf, boolByte(b.Signed), byte(len(b.Dims)))
			for _, d := range b.Dims {
				buf = le.AppendUint32(buf, uint32(d))
			}
			buf = le.AppendUint32(buf, uint32(len(b.Bits)))
			for _, id := range b.Bits {
				buf = le.AppendUint32(buf, uint32(id))
			}
		}
	}
	putBuses(c.Inputs)
	putBuses(c.Outputs)
	buf = le.AppendUint32(buf, uint32(len(c.Nodes)))
	h.Write(buf)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		buf = append(buf[:0], byte(n.Op), byte(len(n.In)))
		buf = le.AppendUint64(buf, n.Table)
		buf = le.AppendUint32(buf, uint32(n.Bus))
		buf = le.AppendUint32(buf, uint32(n.Bit))
		for _, x := range n.In {
			buf = le.AppendUint32(buf, uint32(x))
		}
		h.Write(buf)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func appendString(buf []byte, s string) []byte {
	buf = binary.LittleEndian.AppendUint16(buf, uint16(len(s)))
	return append(buf, s...)
}

func (h *fileHeader) append(buf []byte, magic string) []byte {
	buf = append(buf, magic...)
	buf = binary.LittleEndian.AppendUint16(buf, versionOf(magic))
	buf = append(buf, byte(h.kind))
	buf = appendString(buf, h.backend)
	buf = appendString(buf, h.params)
	return append(buf, h.key[:]...)
}

func (k *keyFile) marshal() []byte {
	buf := k.fileHeader.append(nil, keyMagic)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(k.body)))
	buf = append(buf, k.body...)
	return seal(buf)
}

func (f *ctFile) marshal() []byte {
	le := binary.LittleEndian
	buf := f.fileHeader.append(nil, ctMagic)
	buf = append(buf, f.circuitHash[:]...)
	buf = appendString(buf, f.circuitName)
	buf = le.AppendUint32(buf, uint32(len(f.layout)))
	for i := range f.layout {
		b := &f.layout[i]
		buf = appendString(buf, b.Name)
		buf = le.AppendUint32(buf, uint32(b.Width))
		buf = append(buf, boolByte(b.Signed), byte(len(b.Dims)))
		for _, d := range b.Dims {
			buf = le.AppendUint32(buf, uint32(d))
		}
	}
	buf = le.AppendUint32(buf, uint32(f.instances))
	buf = le.AppendUint32(buf, uint32(f.ctSize))
	buf = le.AppendUint32(buf, uint32(len(f.cts)))
	for _, c := range f.cts {
		buf = append(buf, c...)
	}
	return seal(buf)
}

func seal(buf []byte) []byte {
	sum := sha256.Sum256(buf)
	return append(buf, sum[:]...)
}

// versionOf is the format version of files with magic.
func versionOf(magic string) uint16 {
	if magic == ctMagic {
		return ctVersion
	}
	return keyVersion
}

// errTruncated is the cause reported for a body that ends early.
var errTruncated = errors.New("truncated")

// fileCursor is a bounds-checked reader over a file's body.
type fileCursor struct {
	buf []byte
	err error
}

func (r *fileCursor) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf) {
		r.err = errTruncated
		return nil
	}
	out := r.buf[:n:n]
	r.buf = r.buf[n:]
	return out
}

func (r *fileCursor) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *fileCursor) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *fileCursor) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *fileCursor) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *fileCursor) str() string { return string(r.take(int(r.u16()))) }

// openWorkflowFile checks magic, checksum and version of a workflow file read from path
// and returns its header and a cursor on its body. what names the expected
// content for messages ("an hcc key file").
func openWorkflowFile(path string, data []byte, magic, what string) (fileHeader, *fileCursor, error) {
	name := filepath.Base(path)
	const minSize = 8 + 2 + 1 + sha256.Size
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		other := "not " + what
		switch {
		case len(data) >= 8 && string(data[:8]) == keyMagic:
			other = "a key file, not " + what
		case len(data) >= 8 && string(data[:8]) == ctMagic:
			other = "a ciphertext file, not " + what
		}
		return fileHeader{}, nil, fmt.Errorf("%s is %s", name, other)
	}
	if len(data) < minSize {
		return fileHeader{}, nil, fmt.Errorf("%s is truncated (%d bytes)", name, len(data))
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return fileHeader{}, nil, fmt.Errorf("%s is corrupted or truncated (checksum mismatch)", name)
	}
	r := &fileCursor{buf: body[len(magic):]}
	if v, want := r.u16(), versionOf(magic); v != want {
		return fileHeader{}, nil, fmt.Errorf("%s has format version %d; this hcc reads version %d", name, v, want)
	}
	var h fileHeader
	h.kind = fileKind(r.u8())
	h.backend = r.str()
	h.params = r.str()
	copy(h.key[:], r.take(len(h.key)))
	if r.err != nil {
		return fileHeader{}, nil, fmt.Errorf("%s: malformed header: %w", name, r.err)
	}
	return h, r, nil
}

// readKeyFile reads a key file and checks that it holds want.
func readKeyFile(path string, want fileKind) (*keyFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h, r, err := openWorkflowFile(path, data, keyMagic, "an hcc key file")
	if err != nil {
		return nil, err
	}
	if h.kind != want {
		return nil, fmt.Errorf("%s holds %v, not %v", filepath.Base(path), h.kind, want)
	}
	n := r.u64()
	body := r.take(int(min(n, uint64(len(r.buf)+1))))
	if r.err == nil && len(r.buf) != 0 {
		r.err = fmt.Errorf("%d trailing bytes", len(r.buf))
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: malformed key file: %w", filepath.Base(path), r.err)
	}
	return &keyFile{fileHeader: h, body: body}, nil
}

// readCtFile reads a ciphertext file and checks that it holds want.
func readCtFile(path string, want fileKind) (*ctFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h, r, err := openWorkflowFile(path, data, ctMagic, "an hcc ciphertext file")
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	if h.kind != want {
		return nil, fmt.Errorf("%s holds %v, not %v", name, h.kind, want)
	}
	f := &ctFile{fileHeader: h}
	copy(f.circuitHash[:], r.take(32))
	f.circuitName = r.str()
	nb := int(r.u32())
	for i := 0; i < nb && r.err == nil; i++ {
		b := ir.Bus{Name: r.str(), Width: int(r.u32()), Signed: r.u8() == 1}
		nd := int(r.u8())
		for j := 0; j < nd && r.err == nil; j++ {
			b.Dims = append(b.Dims, int(r.u32()))
		}
		f.layout = append(f.layout, b)
	}
	f.instances = int(r.u32())
	f.ctSize = int(r.u32())
	count := int(r.u32())
	if r.err == nil && (f.ctSize <= 0 || count < 0 || count > len(r.buf)/max(f.ctSize, 1)) {
		r.err = fmt.Errorf("%d ciphertexts of %d bytes do not fit in %d bytes", count, f.ctSize, len(r.buf))
	}
	for i := 0; i < count && r.err == nil; i++ {
		f.cts = append(f.cts, r.take(f.ctSize))
	}
	if r.err == nil && len(r.buf) != 0 {
		r.err = fmt.Errorf("%d trailing bytes", len(r.buf))
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: malformed ciphertext file: %w", name, r.err)
	}
	return f, nil
}

// layoutOf copies the interface of buses (no Bits).
func layoutOf(bs []ir.Bus) []ir.Bus {
	out := make([]ir.Bus, len(bs))
	for i := range bs {
		out[i] = ir.Bus{Name: bs[i].Name, Width: bs[i].Width, Signed: bs[i].Signed, Dims: bs[i].Dims}
	}
	return out
}

// openCtFileFor reads a ciphertext file of the wanted kind and checks that it
// belongs to circuit c (at circuitPath) and to the key at keyPath, with the
// layout of buses: what eval (inputs) and decrypt (outputs) both need first.
func openCtFileFor(path string, want fileKind, c *ir.Circuit, circuitPath string, key keyID, keyPath string, buses []ir.Bus) (*ctFile, error) {
	f, err := readCtFile(path, want)
	if err != nil {
		return nil, err
	}
	if err := f.checkFor(path, c, circuitPath, key, keyPath, buses); err != nil {
		return nil, err
	}
	return f, nil
}

// checkFor verifies that f was made for circuit c (by hash), under the key
// with id key, and holds one ciphertext per bit of buses. path and circuit
// name the files in messages.
func (f *ctFile) checkFor(path string, c *ir.Circuit, circuitPath string, key keyID, keyPath string, buses []ir.Bus) error {
	name := filepath.Base(path)
	if f.key != key {
		return fmt.Errorf("%s was encrypted under key %v, but %s is key %v (wrong key for this ciphertext)", name, f.key, filepath.Base(keyPath), key)
	}
	if h := circuitHash(c); f.circuitHash != h {
		return fmt.Errorf("%s holds %v for circuit %q (hash %x), not for %s (circuit %q, hash %x)",
			name, f.kind, f.circuitName, f.circuitHash[:6], filepath.Base(circuitPath), c.Name, h[:6])
	}
	bits := 0
	for i := range buses {
		bits += len(buses[i].Bits)
	}
	if len(f.cts) != bits {
		return fmt.Errorf("%s holds %d ciphertexts, circuit %q has %d bits", name, len(f.cts), c.Name, bits)
	}
	return nil
}
