package hcc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc/ir"
)

// The file format. Every file (and every MarshalBinary result) is
//
//	magic (8 bytes) | version u16 | kind u8 | engine | parameter set |
//	key id (16 bytes) | body | SHA-256 of everything before
//
// (little endian; strings are u16-length-prefixed). The key id is the first
// 16 bytes of SHA-256 of the serialised server key; key generation writes it
// into both key files, encryption and evaluation copy it into ciphertext
// files, so that a ciphertext and a key that do not belong together are
// told apart before any decryption (an LWE ciphertext decrypts to noise,
// not to an error, under a wrong key). Program files carry a zero key id.
//
// Key files: the body is the engine's own key encoding (for FHEW
// fhew.SecretKey / EvaluationKey.MarshalBinary, for BGV
// bgv.Params.MarshalSecretKey / MarshalEvaluationKeys; each itself
// checksummed and bound to the parameter set), u64-length-prefixed.
//
// Ciphertext files: the body is the source circuit's hash (32 bytes,
// Program.CircuitHash), the circuit name, the layout of the buses the
// ciphertexts encrypt (inputs for encrypted inputs, outputs for encrypted
// outputs: count u32, then per bus name, width u32, signed u8, dims count
// u8, dims u32...), the pack count u32 and per pack its instance count u32
// (0: one input set in every slot of a packed engine; n: slots 0..n-1 hold
// n different input sets; FHEW packs hold one instance each), then the
// ciphertext size u32, the count u32 and the ciphertexts (the engine's
// encoding, pack after pack, one per input or output bit in the layout's
// bit order; all of one size, so a BGV evaluator brings its outputs to one
// level; on the wide-table sets the size also tells a bare wide bit from
// a wide bit followed by its input RGSW, engine_fhew_wide_rgsw.go, so
// files without RGSWs keep their encoding and version).
//
// Program files (.hcp): see programfile.go.

const (
	keyMagic     = "HCCKEY\x00\x00"
	ctMagic      = "HCCCT\x00\x00\x00"
	programMagic = "HCCPROG\x00"
	keyVersion   = 1
	// ctVersion 3: ciphertext files hold several packs (FHEW and BGV batches).
	// 4: and their position in the batch (id, first instance, total).
	ctVersion      = 4
	programVersion = 1
)

// fileKind says what a file holds.
type fileKind uint8

const (
	kindSecretKey fileKind = 1
	kindEvalKey   fileKind = 2
	ctInputs      fileKind = 3
	ctOutputs     fileKind = 4
	kindProgram   fileKind = 5
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
	case kindProgram:
		return "a compiled program"
	case kindAESKey: // transcipher.go
		return "an encrypted AES key"
	}
	return fmt.Sprintf("an unknown kind (%d)", uint8(k))
}

// KeyID identifies a key pair: the first 16 bytes of SHA-256 of the
// serialised server key.
type KeyID [16]byte

// String is the first 8 bytes in hex, as the CLI prints it.
func (id KeyID) String() string { return hex.EncodeToString(id[:8]) }

func keyIDOf(serverKey []byte) KeyID {
	sum := sha256.Sum256(serverKey)
	var id KeyID
	copy(id[:], sum[:])
	return id
}

// fileHeader is the part every file starts with.
type fileHeader struct {
	kind   fileKind
	engine string
	params string
	key    KeyID
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
	buf = appendString(buf, h.engine)
	buf = appendString(buf, h.params)
	return append(buf, h.key[:]...)
}

func seal(buf []byte) []byte {
	sum := sha256.Sum256(buf)
	return append(buf, sum[:]...)
}

// versionOf is the format version of files with magic.
func versionOf(magic string) uint16 {
	switch magic {
	case ctMagic:
		return ctVersion
	case programMagic:
		return programVersion
	}
	return keyVersion
}

// errTruncated is the cause reported for a body that ends early.
var errTruncated = errors.New("truncated")

// cursor is a bounds-checked reader over a file's body.
type cursor struct {
	buf []byte
	err error
}

func (r *cursor) take(n int) []byte {
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

func (r *cursor) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *cursor) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *cursor) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *cursor) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *cursor) str() string { return string(r.take(int(r.u16()))) }

// flag reads a boolean byte; anything but 0 or 1 is an error, so that an
// accepted file always re-encodes to the same bytes.
func (r *cursor) flag() bool {
	switch v := r.u8(); v {
	case 0:
		return false
	case 1:
		return true
	default:
		if r.err == nil {
			r.err = fmt.Errorf("flag byte %d is neither 0 nor 1", v)
		}
		return false
	}
}

// end records trailing bytes as an error.
func (r *cursor) end() {
	if r.err == nil && len(r.buf) != 0 {
		r.err = fmt.Errorf("%d trailing bytes", len(r.buf))
	}
}

// openFile checks magic, checksum and version of data (named name in
// messages: the path the user gave, or a description for bytes from
// memory) and returns its header and a cursor on its body. what names the
// expected content ("an hcc key file").
func openFile(name string, data []byte, magic, what string) (fileHeader, *cursor, error) {
	const minSize = 8 + 2 + 1 + sha256.Size
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		other := "not " + what
		if len(data) >= 8 {
			switch string(data[:8]) {
			case keyMagic:
				other = "a key file, not " + what
			case ctMagic:
				other = "a ciphertext file, not " + what
			case programMagic:
				other = "a compiled program file, not " + what
			}
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
	r := &cursor{buf: body[len(magic):]}
	if v, want := r.u16(), versionOf(magic); v != want {
		if v < want {
			return fileHeader{}, nil, fmt.Errorf("%s has format version %d, written by an older hcc; this hcc reads version %d only: make the file again with this hcc", name, v, want)
		}
		return fileHeader{}, nil, fmt.Errorf("%s has format version %d, written by a newer hcc; this hcc reads version %d", name, v, want)
	}
	var h fileHeader
	h.kind = fileKind(r.u8())
	h.engine = r.str()
	h.params = r.str()
	copy(h.key[:], r.take(len(h.key)))
	if r.err != nil {
		return fileHeader{}, nil, fmt.Errorf("%s: malformed header: %w", name, r.err)
	}
	return h, r, nil
}

// appendLayout encodes the interface of buses (no bits).
func appendLayout(buf []byte, bs []ir.Bus) []byte {
	le := binary.LittleEndian
	buf = le.AppendUint32(buf, uint32(len(bs)))
	for i := range bs {
		b := &bs[i]
		buf = appendString(buf, b.Name)
		buf = le.AppendUint32(buf, uint32(b.Width))
		buf = append(buf, boolByte(b.Signed), byte(len(b.Dims)))
		for _, d := range b.Dims {
			buf = le.AppendUint32(buf, uint32(d))
		}
	}
	return buf
}

// readLayout decodes appendLayout's encoding.
func readLayout(r *cursor) []ir.Bus {
	nb := int(r.u32())
	if r.err == nil && nb > len(r.buf) {
		r.err = errTruncated
	}
	var out []ir.Bus
	for i := 0; i < nb && r.err == nil; i++ {
		b := ir.Bus{Name: r.str(), Width: int(r.u32()), Signed: r.flag()}
		nd := int(r.u8())
		for j := 0; j < nd && r.err == nil; j++ {
			b.Dims = append(b.Dims, int(r.u32()))
		}
		out = append(out, b)
	}
	return out
}

// layoutOf copies the interface of buses (no Bits).
func layoutOf(bs []ir.Bus) []ir.Bus {
	out := make([]ir.Bus, len(bs))
	for i := range bs {
		out[i] = ir.Bus{Name: bs[i].Name, Width: bs[i].Width, Signed: bs[i].Signed, Dims: bs[i].Dims}
	}
	return out
}

// sameLayout reports whether a and b have the same names and types.
func sameLayout(a, b []ir.Bus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.Width != y.Width || x.Signed != y.Signed || len(x.Dims) != len(y.Dims) {
			return false
		}
		for j := range x.Dims {
			if x.Dims[j] != y.Dims[j] {
				return false
			}
		}
	}
	return true
}
