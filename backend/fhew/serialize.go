package fhew

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Key file format (little endian):
//
//	magic "HCCFHEW\x00" | version u16 | kind u8 | parameter literal |
//	body | SHA-256 of everything before
//
// The parameter literal is written field by field (name length-prefixed), so
// a key is only accepted for the exact set it was made for. An evaluation
// key's body is its 32-byte Seed followed by the b parts of every RGSW row,
// every automorphism-key row (uint32, NTT domain) and every key-switching
// entry (uint16): the uniform a parts are regenerated from the seed with the
// same stream labels as key generation, which halves the RGSW part and
// shrinks the key-switching key by a factor n+1. A secret key's body is s
// and z as int8.

const (
	fileMagic = "HCCFHEW\x00"
	// 2: the literal records Slots (P); version-1 files could not hold P = 8 sets.
	// 3: seeds expand through AES-256-CTR (ring.PRNG) instead of ChaCha8, so a
	// version-2 seed would regenerate different keys.
	fileVersion = 3
	kindEvalKey = 1
	kindSecret  = 2
)

// ErrKeyFormat reports a malformed, truncated, corrupted or mismatched key file.
var ErrKeyFormat = errors.New("fhew: bad key file")

func writeLiteral(b *bytes.Buffer, l ParamsLiteral) {
	le := binary.LittleEndian
	b.Write(le.AppendUint16(nil, uint16(len(l.Name))))
	b.WriteString(l.Name)
	flags := byte(0)
	if l.DropLowestDigit {
		flags |= 1
	}
	if l.Insecure {
		flags |= 2
	}
	if l.CMux != nil {
		flags |= flagCMux
	}
	b.Write([]byte{byte(l.Method), byte(l.LWESecret), byte(l.RLWESecret), flags})
	for _, v := range []uint64{math.Float64bits(l.Sigma), uint64(l.LWEDim), uint64(l.LWEModulus), uint64(l.LogN),
		uint64(l.Q), uint64(l.LogBg), uint64(l.QKS), uint64(l.LogBKS), uint64(l.Window), uint64(l.Slots)} {
		b.Write(le.AppendUint64(nil, v))
	}
	if l.CMux != nil {
		writeCBSLiteral(b, l.CMux)
	}
}

// reader is a bounds-checked cursor over a key file.
type reader struct {
	buf []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf) {
		r.err = fmt.Errorf("%w: truncated", ErrKeyFormat)
		return nil
	}
	out := r.buf[:n]
	r.buf = r.buf[n:]
	return out
}

func (r *reader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// u32 reads a u64 field that holds a 32-bit value (a modulus); larger
// values are refused, so that every accepted file re-encodes to itself.
func (r *reader) u32() uint32 {
	v := r.u64()
	if v > math.MaxUint32 && r.err == nil {
		r.err = fmt.Errorf("%w: 32-bit field holds %#x", ErrKeyFormat, v)
	}
	return uint32(v)
}

func readLiteral(r *reader) ParamsLiteral {
	var l ParamsLiteral
	l.Name = string(r.take(int(r.u16())))
	h := r.take(4)
	if h == nil {
		return l
	}
	l.Method, l.LWESecret, l.RLWESecret = Method(h[0]), SecretDist(h[1]), SecretDist(h[2])
	if h[3]&^(1|2|flagCMux) != 0 {
		r.err = fmt.Errorf("%w: unknown literal flags %#x", ErrKeyFormat, h[3])
		return l
	}
	l.DropLowestDigit, l.Insecure = h[3]&1 != 0, h[3]&2 != 0
	l.Sigma = math.Float64frombits(r.u64())
	l.LWEDim, l.LWEModulus, l.LogN = int(r.u64()), int(r.u64()), int(r.u64())
	l.Q = r.u32()
	l.LogBg, l.QKS, l.LogBKS, l.Window = int(r.u64()), int(r.u64()), int(r.u64()), int(r.u64())
	l.Slots = int(r.u64())
	if h[3]&flagCMux != 0 {
		l.CMux = readCBSLiteral(r)
	}
	return l
}

// openFile checks magic, version, kind, checksum and parameter set, and
// returns a reader positioned at the body.
func openFile(p Params, data []byte, kind byte) (*reader, error) {
	if len(data) < len(fileMagic)+3+sha256.Size || string(data[:len(fileMagic)]) != fileMagic {
		return nil, fmt.Errorf("%w: not an hcc FHEW key (bad magic or too short)", ErrKeyFormat)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%w: checksum mismatch (corrupted or truncated)", ErrKeyFormat)
	}
	r := &reader{buf: body[len(fileMagic):]}
	if v := r.u16(); v != fileVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d", ErrKeyFormat, v, fileVersion)
	}
	if k := r.take(1); k == nil || k[0] != kind {
		return nil, fmt.Errorf("%w: wrong key kind", ErrKeyFormat)
	}
	lit := readLiteral(r)
	if r.err != nil {
		return nil, r.err
	}
	if !lit.sameScheme(p.lit) {
		if lit.Name == p.lit.Name { // "key is for X, not X" would read as no reason at all
			return nil, fmt.Errorf("%w: key names parameter set %q but a field of its literal differs from that set's (damaged, or the set changed since the key was made: make the key again)", ErrKeyFormat, lit.Name)
		}
		return nil, fmt.Errorf("%w: key is for parameter set %q, not %q", ErrKeyFormat, lit.Name, p.lit.Name)
	}
	return r, nil
}

func header(p Params, kind byte) *bytes.Buffer {
	b := new(bytes.Buffer)
	b.WriteString(fileMagic)
	b.Write(binary.LittleEndian.AppendUint16(nil, fileVersion))
	b.WriteByte(kind)
	writeLiteral(b, p.lit)
	return b
}

func finish(b *bytes.Buffer) []byte {
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// MarshalBinary encodes the evaluation key (seed and b parts only).
func (ek *EvaluationKey) MarshalBinary() ([]byte, error) {
	p := ek.params.params
	b := header(ek.params, kindEvalKey)
	b.Write(ek.Seed[:])
	le := binary.LittleEndian
	var tmp []byte
	putRows := func(slab []uint32) {
		N := p.N
		for off := 0; off < len(slab); off += 2 * N {
			tmp = tmp[:0]
			for _, x := range slab[off : off+N] {
				tmp = le.AppendUint32(tmp, x)
			}
			b.Write(tmp)
		}
	}
	putRows(ek.brk[0])
	putRows(ek.brk[1])
	for _, a := range ek.auto {
		putRows(a)
	}
	k := ek.ksk
	for off := 0; off < len(k.data); off += k.width {
		b.Write(le.AppendUint16(nil, k.data[off]))
	}
	if err := writeCMuxEvalKey(b, ek, putRows); err != nil {
		return nil, err
	}
	return finish(b), nil
}

// WriteTo writes MarshalBinary's encoding to w.
func (ek *EvaluationKey) WriteTo(w io.Writer) (int64, error) {
	data, err := ek.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(data)
	return int64(n), err
}

// ReadEvaluationKey decodes an evaluation key for p, regenerating the
// uniform parts from the stored seed. Truncated, corrupted or foreign files
// (another parameter set, another kind, another version) are rejected with
// an error wrapping ErrKeyFormat.
func ReadEvaluationKey(p Params, rd io.Reader) (*EvaluationKey, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("fhew: reading evaluation key: %w", err)
	}
	return UnmarshalEvaluationKey(p, data)
}

// UnmarshalEvaluationKey is ReadEvaluationKey on an encoding in memory,
// without the copy a reader costs (io.ReadAll allocates 2.5 times the
// 96 MB of a STD128_T_CMUX key). The key keeps no part of data.
func UnmarshalEvaluationKey(p Params, data []byte) (*EvaluationKey, error) {
	r, err := openFile(p, data, kindEvalKey)
	if err != nil {
		return nil, err
	}
	ek := &EvaluationKey{params: p}
	copy(ek.Seed[:], r.take(32))
	pp := p.params
	N, n := pp.N, pp.n
	le := binary.LittleEndian
	// getRows fills the b parts from the file and regenerates the a parts
	// exactly as encryptRowsNTT drew them.
	getRows := func(slab []uint32, pub *prng) {
		for off := 0; off < len(slab); off += 2 * N {
			raw := r.take(4 * N)
			if raw == nil {
				return
			}
			for i := range N {
				slab[off+i] = le.Uint32(raw[4*i:])
			}
			pub.uniformMod(pp.Q, slab[off+N:off+2*N])
		}
	}
	hasMinus := pp.lit.Method != MethodLMKCDEY
	ek.brk[0] = make([]uint32, n*pp.rgswLen())
	if hasMinus {
		ek.brk[1] = make([]uint32, n*pp.rgswLen())
	}
	l := pp.rgswLen()
	for sign := 0; sign < 2; sign++ {
		if ek.brk[sign] == nil {
			continue
		}
		for i := 0; i < n; i++ {
			getRows(ek.brk[sign][i*l:(i+1)*l], newPRNG(ek.Seed.derive(domainRGSW, uint64(2*i+sign))))
		}
	}
	if pp.lit.Method.usesAutomorphisms() {
		ek.auto = make([][]uint32, pp.window+1)
		for u := 0; u <= pp.window; u++ {
			if u == 0 && pp.lit.Method != MethodLMKCDEY {
				continue
			}
			ek.auto[u] = make([]uint32, pp.autoKeyLen())
			getRows(ek.auto[u], newPRNG(ek.Seed.derive(domainAuto, uint64(u))))
		}
	}
	ek.ksk = newKeySwitchKey(pp)
	k := ek.ksk
	pub := newPRNG(ek.Seed.derive(domainKSK, 0))
	mask := uint16(pp.qks - 1)
	for off := 0; off < len(k.data); off += k.width {
		raw := r.take(2)
		if raw == nil {
			break
		}
		k.data[off] = le.Uint16(raw)
		a := k.data[off+1 : off+1+n]
		pub.uniform16(a)
		for t := range a {
			a[t] &= mask
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := readCMuxEvalKey(r, ek, getRows); err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.buf) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrKeyFormat, len(r.buf))
	}
	return ek, nil
}

// MarshalBinary encodes the secret key (s and z as int8).
func (sk *SecretKey) MarshalBinary() ([]byte, error) {
	b := header(sk.params, kindSecret)
	for _, v := range sk.s {
		b.WriteByte(byte(int8(v)))
	}
	for _, v := range sk.z {
		b.WriteByte(byte(int8(v)))
	}
	if err := writeCMuxSecret(b, sk); err != nil {
		return nil, err
	}
	return finish(b), nil
}

// ReadSecretKey decodes a secret key for p (see ReadEvaluationKey).
func ReadSecretKey(p Params, rd io.Reader) (*SecretKey, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("fhew: reading secret key: %w", err)
	}
	r, err := openFile(p, data, kindSecret)
	if err != nil {
		return nil, err
	}
	sv, zv := r.take(p.n), r.take(p.N)
	if r.err != nil {
		return nil, r.err
	}
	sk := &SecretKey{params: p, s: make([]int32, p.n), z: make([]int32, p.N), zNTT: make([]uint32, p.N)}
	for i, b := range sv {
		sk.s[i] = int32(int8(b))
	}
	if err := readCMuxSecret(r, sk); err != nil {
		return nil, err
	}
	if len(r.buf) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrKeyFormat, len(r.buf))
	}
	for i, b := range zv {
		sk.z[i] = int32(int8(b))
		sk.zNTT[i] = p.ntt.FromInt64(int64(sk.z[i]))
	}
	p.ntt.Forward(sk.zNTT, sk.zNTT)
	return sk, nil
}
