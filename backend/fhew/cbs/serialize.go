package cbs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Key file format (little endian):
//
//	magic "HCCCBS\x00\x00" | version u16 | kind u8 | parameter literal |
//	body | SHA-256 of everything before
//
// The literal is written field by field (Security left out), so a key is
// accepted only for the exact set it was made for. A secret key's body is
// z (N bytes) and s (n bytes) as int8 in {-1, 0, 1}. An evaluation key's
// body holds its public parts only, the uniform ones being regenerated
// from its seed (keyseed.go): the 32-byte seed, then the b lane of every
// LWE key-switching row (uint16, below Q_ks), then the B polynomial of
// every row of the blind-rotation keys (per i, the key for s_i = 1 then for
// s_i = -1), of the trace keys and of the scheme-switch key, each as its
// two residue slices of N uint32 (NTT domain, each residue below its
// prime): about 75 MB for STD128_CBS instead of 361. Every length follows
// from the parameter set, so a decoder checks the size of the whole input
// before it allocates anything.
//
// A gate-mode evaluation key (GenGateEvaluationKey) is kind 3: the seed,
// N_g and log2 of the gate modulus (uint32 each), then the B polynomials
// as above without the LWE key switch, and after them those of the lift
// key; kinds 1 and 2 are unchanged, so version 2 files still read.
//
// A wide bit (AppendWideBit) has no header: N+1 uint64 residues below Q
// (A then B), WideBitSize bytes; the containers that hold wide bits carry
// the parameter set and a checksum.

const (
	fileMagic = "HCCCBS\x00\x00"
	// 2: evaluation keys hold the seed and the b parts only.
	fileVersion = 2
	kindEvalKey = 1
	kindSecret  = 2
	kindGateKey = 3
)

// ErrFormat reports a malformed, truncated, corrupted or mismatched key or
// wide-bit encoding.
var ErrFormat = errors.New("cbs: bad encoding")

func appendGadget(b []byte, g Gadget) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(g.LogB))
	b = le.AppendUint32(b, uint32(g.Digits))
	return le.AppendUint32(b, uint32(g.Drop))
}

// appendLiteral writes the fields that define the set's arithmetic.
func appendLiteral(b []byte, l ParamsLiteral) []byte {
	le := binary.LittleEndian
	b = le.AppendUint16(b, uint16(len(l.Name)))
	b = append(b, l.Name...)
	b = append(b, boolByte(l.Insecure))
	for _, v := range []uint64{uint64(l.LogN), uint64(l.Q0), uint64(l.Q1), math.Float64bits(l.Sigma),
		uint64(l.LWEDim), uint64(l.LogQKS), uint64(l.LogBKS)} {
		b = le.AppendUint64(b, v)
	}
	for _, g := range []Gadget{l.BR, l.Trace, l.CBS} {
		b = appendGadget(b, g)
	}
	return b
}

func boolByte(x bool) byte {
	if x {
		return 1
	}
	return 0
}

// header starts an encoding of kind for p, with room for body bytes.
func header(p Params, kind byte, body int) []byte {
	b := make([]byte, 0, 128+len(p.lit.Name)+body+sha256.Size)
	b = append(b, fileMagic...)
	b = binary.LittleEndian.AppendUint16(b, fileVersion)
	b = append(b, kind)
	return appendLiteral(b, p.lit)
}

func seal(b []byte) []byte {
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// open checks magic, version, kind, parameter set, exact length (the
// header plus body bytes plus the checksum) and checksum, and returns the
// body.
func open(p Params, data []byte, kind byte, body int, what string) ([]byte, error) {
	return openSized(p, data, kind, func([]byte) (int, error) { return body, nil }, what)
}

// openSized is open for a body whose length follows from its first bytes:
// bodyLen sees everything after the (checked) header and returns the
// body's length or why it has none.
func openSized(p Params, data []byte, kind byte, bodyLen func(rest []byte) (int, error), what string) ([]byte, error) {
	if !p.valid() {
		return nil, fmt.Errorf("cbs: %s: zero Params (use NewParams)", what)
	}
	hdr := header(p, kind, 0)
	if len(data) < len(fileMagic)+3 || string(data[:len(fileMagic)]) != fileMagic {
		return nil, fmt.Errorf("%w: not an hcc CBS %s (bad magic or too short)", ErrFormat, what)
	}
	if v := binary.LittleEndian.Uint16(data[len(fileMagic):]); v != fileVersion {
		return nil, fmt.Errorf("%w: %s format version %d, want %d", ErrFormat, what, v, fileVersion)
	}
	if k := data[len(fileMagic)+2]; k != kind {
		return nil, fmt.Errorf("%w: holds key kind %d, not a %s", ErrFormat, k, what)
	}
	if len(data) < len(hdr) || !bytes.Equal(data[:len(hdr)], hdr) {
		return nil, fmt.Errorf("%w: %s is not for parameter set %s (%s)", ErrFormat, what, p.lit.Name, literalName(data[len(fileMagic)+3:]))
	}
	body, err := bodyLen(data[len(hdr):])
	if err != nil {
		return nil, err
	}
	if want := len(hdr) + body + sha256.Size; len(data) != want {
		return nil, fmt.Errorf("%w: %s of %d bytes, want %d for %s (truncated or padded)", ErrFormat, what, len(data), want, p.lit.Name)
	}
	payload, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(payload); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%w: %s checksum mismatch (corrupted)", ErrFormat, what)
	}
	return payload[len(hdr):], nil
}

// literalName describes the set a foreign header names, for messages.
func literalName(b []byte) string {
	if len(b) < 2 {
		return "truncated header"
	}
	n := int(binary.LittleEndian.Uint16(b))
	if n > len(b)-2 || n > 64 {
		return "malformed header"
	}
	return fmt.Sprintf("it names %q or differs in a field", b[2:2+n])
}

// MarshalBinary encodes the secret key (see the format above).
func (sk *SecretKey) MarshalBinary() ([]byte, error) {
	if sk == nil || !sk.params.valid() {
		return nil, errors.New("cbs: MarshalBinary: nil or invalid secret key")
	}
	b := header(sk.params, kindSecret, len(sk.z)+len(sk.s))
	for _, v := range sk.z {
		b = append(b, byte(int8(v)))
	}
	for _, v := range sk.s {
		b = append(b, byte(int8(v)))
	}
	return seal(b), nil
}

// UnmarshalSecretKey decodes MarshalBinary's encoding of a secret key of p.
// Damaged, truncated or foreign data is an error, never a different key.
func UnmarshalSecretKey(p Params, data []byte) (*SecretKey, error) {
	body, err := open(p, data, kindSecret, p.ringN+p.lit.LWEDim, "secret key")
	if err != nil {
		return nil, err
	}
	sk := &SecretKey{params: p, z: make([]int64, p.ringN), s: make([]int64, p.lit.LWEDim)}
	for i, c := range body {
		v := int64(int8(c))
		if v < -1 || v > 1 {
			return nil, fmt.Errorf("%w: secret key coefficient %d is %d, not ternary", ErrFormat, i, v)
		}
		if i < p.ringN {
			sk.z[i] = v
		} else {
			sk.s[i-p.ringN] = v
		}
	}
	r := p.ring
	sk.zNTT = r.NewPoly()
	r.SetCentered(sk.z, sk.zNTT)
	r.Forward(sk.zNTT, sk.zNTT)
	return sk, nil
}

// evalKeyShape is the evaluation key's layout under p: the LWE key
// switch's rows and the number of B polynomials.
func evalKeyShape(p Params) (ksRowCount, bPolys int) {
	l := p.lit
	return ksRows(p), l.LWEDim*2*(2*l.BR.Digits) + (l.LogN+1)*l.Trace.Digits
}

// evalKeyBody is the size of an evaluation key's body in bytes.
func evalKeyBody(p Params) int {
	rows, polys := evalKeyShape(p)
	return 32 + rows*2 + polys*2*p.ringN*4
}

// bPolys calls f on every B polynomial of ek in the file's order.
func (ek *EvaluationKey) bPolys(f func(ring.Poly2)) {
	for i := range ek.brk {
		for _, g := range ek.brk[i] {
			for _, b := range g.B {
				f(b)
			}
		}
	}
	for _, k := range ek.trace {
		for _, b := range k.B {
			f(b)
		}
	}
	for _, b := range ek.ss.B {
		f(b)
	}
	for _, b := range ek.lift.B { // gate mode only
		f(b)
	}
}

// ksLane returns where lane n (b) of an LWE key-switching row lives: the
// word within the row and the shift.
func ksLane(n int) (word int, shift uint) { return n / 4, 16 * uint(n%4) }

// MarshalBinary encodes the evaluation key (see the format above): about
// 75 MB for STD128_CBS.
func (ek *EvaluationKey) MarshalBinary() ([]byte, error) {
	if ek == nil || !ek.params.valid() {
		return nil, errors.New("cbs: MarshalBinary: nil or invalid evaluation key")
	}
	if ek.gateN > 0 {
		return ek.marshalGate()
	}
	p := ek.params
	rows, _ := evalKeyShape(p)
	W := ksWidth(p.lit.LWEDim)
	if len(ek.ks) != rows*W || ek.ksWords != W || len(ek.brk) != p.lit.LWEDim || len(ek.trace) != p.lit.LogN {
		return nil, errors.New("internal error: cbs evaluation key of the wrong shape")
	}
	le := binary.LittleEndian
	b := header(p, kindEvalKey, evalKeyBody(p))
	b = append(b, ek.seed[:]...)
	word, shift := ksLane(p.lit.LWEDim)
	for r := 0; r < rows; r++ {
		b = le.AppendUint16(b, uint16(ek.ks[r*W+word]>>shift))
	}
	ek.bPolys(func(x ring.Poly2) {
		for _, res := range x {
			for _, v := range res[:p.ringN] {
				b = le.AppendUint32(b, v)
			}
		}
	})
	return seal(b), nil
}

// UnmarshalEvaluationKey decodes MarshalBinary's encoding of an evaluation
// key of p: every b lane and residue is range-checked, the uniform parts
// are regenerated from the seed.
func UnmarshalEvaluationKey(p Params, data []byte) (*EvaluationKey, error) {
	if k := len(fileMagic) + 2; len(data) > k && data[k] == kindGateKey {
		return unmarshalGate(p, data)
	}
	body, err := open(p, data, kindEvalKey, evalKeyBody(p), "evaluation key")
	if err != nil {
		return nil, err
	}
	var seed [32]byte
	copy(seed[:], body)
	body = body[32:]
	rows, _ := evalKeyShape(p)
	le := binary.LittleEndian
	lane := uint64(p.qks)
	for r := 0; r < rows; r++ { // check before allocating the key
		if v := uint64(le.Uint16(body[2*r:])); v >= lane {
			return nil, fmt.Errorf("%w: key-switching row %d has b = %d, not below Q_ks = %d", ErrFormat, r, v, lane)
		}
	}
	ek := newEvaluationKeyShape(p, seed, 0)
	W := ek.ksWords
	word, shift := ksLane(p.lit.LWEDim)
	for r := 0; r < rows; r++ {
		ek.ks[r*W+word] |= uint64(le.Uint16(body[2*r:])) << shift
	}
	if err := ek.readBPolys(body[2*rows:]); err != nil {
		return nil, err
	}
	regenPublic(ek)
	return ek, nil
}

// readBPolys fills ek's B polynomials (bPolys order) from body,
// range-checking every residue.
func (ek *EvaluationKey) readBPolys(body []byte) error {
	p := ek.params
	le := binary.LittleEndian
	primes := [2]uint32{p.lit.Q0, p.lit.Q1}
	off := 0
	var err error
	ek.bPolys(func(x ring.Poly2) {
		if err != nil {
			return
		}
		for k, res := range x {
			for c := range res[:p.ringN] {
				v := le.Uint32(body[off:])
				off += 4
				if v >= primes[k] {
					err = fmt.Errorf("%w: evaluation key residue %d is %d, not below %d", ErrFormat, off/4-1, v, primes[k])
					return
				}
				res[c] = v
			}
		}
	})
	return err
}

// WideBitSize is the size of one wide bit's encoding under p.
func WideBitSize(p Params) int { return 8 * (p.ringN + 1) }

// AppendWideBit appends w's encoding (A then B, uint64 each) to buf.
func AppendWideBit(buf []byte, w *WideBit) []byte {
	le := binary.LittleEndian
	for _, a := range w.A {
		buf = le.AppendUint64(buf, a)
	}
	return le.AppendUint64(buf, w.B)
}

// DecodeWideBit decodes AppendWideBit's encoding of a wide bit of p.
func DecodeWideBit(p Params, data []byte) (*WideBit, error) {
	if !p.valid() {
		return nil, errors.New("cbs: DecodeWideBit: zero Params (use NewParams)")
	}
	if len(data) != WideBitSize(p) {
		return nil, fmt.Errorf("%w: wide bit of %d bytes, want %d for %s", ErrFormat, len(data), WideBitSize(p), p.lit.Name)
	}
	le := binary.LittleEndian
	w := NewWideBit(p)
	for i := 0; i <= p.ringN; i++ {
		v := le.Uint64(data[8*i:])
		if v >= p.q {
			return nil, fmt.Errorf("%w: wide bit coefficient %d is %d, not below Q = %d", ErrFormat, i, v, p.q)
		}
		if i < p.ringN {
			w.A[i] = v
		} else {
			w.B = v
		}
	}
	return w, nil
}
