package bgv

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Key encodings (little endian), as for FHEW keys:
//
//	magic "HCCBGV\x00\x00" | version u16 | kind u8 | parameter id |
//	body | SHA-256 of everything before
//
// The parameter id is the set's name, m, the digit count and every prime of
// Q and P, so that a key is accepted only by the exact chain it was made
// for. A secret key's body is its φ(m) ternary coefficients as int8. An
// evaluation key set's body is the relinearization key, then the count of
// automorphism keys and each as Galois element u64 and key. A switching key
// is its digit count u32 and then B_j, A_j per digit, each a polynomial over
// all primes of Q·P in evaluation form.
//
// A polynomial row modulo p is φ(m) residues of ceil(bits(p)/8) bytes each
// (3 bytes for M8191's 23-bit primes instead of 8); decoding rejects any
// residue not below p.
//
// Ciphertexts (AppendCiphertext) carry no header of their own: they travel
// in a container that has one (hcc's ciphertext files). A degree-1
// ciphertext is its level u8, its noise estimate (hi, lo as float64 bits,
// flags u8, ancestry 4×u64) and c_0, c_1 over primes p_0..p_level. The noise
// estimate travels with it so that the evaluator's noise management starts
// from the encryptor's estimate (a forged estimate only spoils the sender's
// own result).

const (
	keyMagic     = "HCCBGV\x00\x00"
	keyVersion   = 1
	kindSecret   = 1
	kindEvalKeys = 2
	noiseSize    = 8 + 8 + 1 + 4*8
)

// ErrFormat reports a malformed, truncated, corrupted or mismatched key or
// ciphertext encoding.
var ErrFormat = errors.New("bgv: bad encoding")

// appendID appends the parameter id (see above).
func (pr *Params) appendID(buf []byte) []byte {
	le := binary.LittleEndian
	buf = le.AppendUint16(buf, uint16(len(pr.lit.Name)))
	buf = append(buf, pr.lit.Name...)
	buf = le.AppendUint32(buf, uint32(pr.m))
	buf = le.AppendUint32(buf, uint32(len(pr.digits)))
	for _, ps := range [][]uint64{pr.q, pr.p} {
		buf = le.AppendUint32(buf, uint32(len(ps)))
		for _, p := range ps {
			buf = le.AppendUint64(buf, p)
		}
	}
	return buf
}

// cursor is a bounds-checked reader.
type cursor struct {
	buf []byte
	err error
}

func (r *cursor) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf) {
		r.err = fmt.Errorf("%w: truncated", ErrFormat)
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

func (pr *Params) keyHeader(kind byte) []byte {
	buf := append([]byte(keyMagic), 0, 0, kind)
	binary.LittleEndian.PutUint16(buf[len(keyMagic):], keyVersion)
	return pr.appendID(buf)
}

func seal(buf []byte) []byte {
	sum := sha256.Sum256(buf)
	return append(buf, sum[:]...)
}

// openKey checks magic, checksum, version, kind and parameter id and
// returns a cursor on the body.
func (pr *Params) openKey(data []byte, kind byte) (*cursor, error) {
	if len(data) < len(keyMagic)+3+sha256.Size || string(data[:len(keyMagic)]) != keyMagic {
		return nil, fmt.Errorf("%w: not an hcc BGV key (bad magic or too short)", ErrFormat)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%w: checksum mismatch (corrupted or truncated)", ErrFormat)
	}
	r := &cursor{buf: body[len(keyMagic):]}
	if v := binary.LittleEndian.Uint16(r.take(2)); v != keyVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d", ErrFormat, v, keyVersion)
	}
	if k := r.u8(); k != kind {
		return nil, fmt.Errorf("%w: key kind %d, want %d", ErrFormat, k, kind)
	}
	id := pr.appendID(nil)
	if got := r.take(len(id)); r.err != nil || !bytes.Equal(got, id) {
		return nil, fmt.Errorf("%w: key is not for parameter set %q (name, m, digits or primes differ)", ErrFormat, pr.lit.Name)
	}
	return r, nil
}

// MarshalSecretKey encodes sk (its ternary coefficients).
func (pr *Params) MarshalSecretKey(sk *SecretKey) ([]byte, error) {
	if len(sk.coeffs) != pr.n {
		return nil, fmt.Errorf("bgv: secret key has %d coefficients, want %d", len(sk.coeffs), pr.n)
	}
	buf := pr.keyHeader(kindSecret)
	for _, c := range sk.coeffs {
		buf = append(buf, byte(int8(c)))
	}
	return seal(buf), nil
}

// ReadSecretKey decodes a secret key made for pr.
func (pr *Params) ReadSecretKey(data []byte) (*SecretKey, error) {
	r, err := pr.openKey(data, kindSecret)
	if err != nil {
		return nil, err
	}
	raw := r.take(pr.n)
	if r.err == nil && len(r.buf) != 0 {
		r.err = fmt.Errorf("%w: %d trailing bytes", ErrFormat, len(r.buf))
	}
	if r.err != nil {
		return nil, r.err
	}
	c := make([]int64, pr.n)
	for i, b := range raw {
		v := int64(int8(b))
		if v < -1 || v > 1 {
			return nil, fmt.Errorf("%w: secret coefficient %d = %d is not ternary", ErrFormat, i, v)
		}
		c[i] = v
	}
	return pr.secretKeyFromCoeffs(c), nil
}

// secretKeyFromCoeffs builds the evaluation forms of s (as GenSecretKey).
func (pr *Params) secretKeyFromCoeffs(c []int64) *SecretKey {
	r := pr.ringQP
	qp := r.NewPoly(r.MaxLevel())
	r.SetSmall(c, qp, r.NewScratch())
	return &SecretKey{S: &Poly{Rows: qp.Rows[:pr.ringQ.MaxLevel()+1]}, qp: qp, coeffs: c}
}

// rowWidth is the encoded size of one residue modulo q.
func rowWidth(q uint64) int { return (bits.Len64(q) + 7) / 8 }

// appendRows appends the rows of p (moduli of r, in order).
func appendRows(buf []byte, r *Ring, p *Poly) []byte {
	for i, row := range p.Rows {
		w := rowWidth(r.moduli[i].Q)
		for _, v := range row {
			for b := 0; b < w; b++ {
				buf = append(buf, byte(v>>(8*b)))
			}
		}
	}
	return buf
}

// readRows fills the rows of p from r, checking every residue.
func readRows(c *cursor, r *Ring, p *Poly) {
	for i, row := range p.Rows {
		q := r.moduli[i].Q
		w := rowWidth(q)
		data := c.take(w * len(row))
		if c.err != nil {
			return
		}
		for k := range row {
			v := uint64(0)
			for b := w - 1; b >= 0; b-- {
				v = v<<8 | uint64(data[k*w+b])
			}
			if v >= q {
				c.err = fmt.Errorf("%w: residue %d >= prime %d", ErrFormat, v, q)
				return
			}
			row[k] = v
		}
	}
}

func (pr *Params) appendSwitchingKey(buf []byte, key *SwitchingKey) ([]byte, error) {
	if len(key.B) != len(pr.digits) || len(key.A) != len(pr.digits) {
		return nil, fmt.Errorf("bgv: switching key has %d digits, want %d", len(key.B), len(pr.digits))
	}
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(key.B)))
	for j := range key.B {
		buf = appendRows(buf, pr.ringQP, key.B[j])
		buf = appendRows(buf, pr.ringQP, key.A[j])
	}
	return buf, nil
}

func (pr *Params) readSwitchingKey(c *cursor) *SwitchingKey {
	if d := c.u32(); c.err == nil && int(d) != len(pr.digits) {
		c.err = fmt.Errorf("%w: switching key has %d digits, want %d", ErrFormat, d, len(pr.digits))
	}
	key := &SwitchingKey{}
	r := pr.ringQP
	for j := 0; j < len(pr.digits) && c.err == nil; j++ {
		b, a := r.NewPoly(r.MaxLevel()), r.NewPoly(r.MaxLevel())
		readRows(c, r, b)
		readRows(c, r, a)
		key.B, key.A = append(key.B, b), append(key.A, a)
	}
	return key
}

// MarshalEvaluationKeys encodes the relinearization and automorphism keys.
func (pr *Params) MarshalEvaluationKeys(ek *EvaluationKeySet) ([]byte, error) {
	buf, err := pr.appendSwitchingKey(pr.keyHeader(kindEvalKeys), ek.Relin)
	if err != nil {
		return nil, err
	}
	elems := ek.GaloisElements()
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(elems)))
	for _, t := range elems {
		buf = binary.LittleEndian.AppendUint64(buf, t)
		if buf, err = pr.appendSwitchingKey(buf, ek.auto[t]); err != nil {
			return nil, err
		}
	}
	return seal(buf), nil
}

// ReadEvaluationKeys decodes an evaluation key set made for pr.
func (pr *Params) ReadEvaluationKeys(data []byte) (*EvaluationKeySet, error) {
	c, err := pr.openKey(data, kindEvalKeys)
	if err != nil {
		return nil, err
	}
	ek := NewEvaluationKeySet(pr.readSwitchingKey(c))
	n := int(c.u32())
	for i := 0; i < n && c.err == nil; i++ {
		t := c.u64()
		if c.err == nil && (t == 0 || t >= uint64(pr.m)) {
			c.err = fmt.Errorf("%w: Galois element %d not in Z_%d^*", ErrFormat, t, pr.m)
		}
		if key := pr.readSwitchingKey(c); c.err == nil {
			ek.auto[t] = key
		}
	}
	if c.err == nil && len(c.buf) != 0 {
		c.err = fmt.Errorf("%w: %d trailing bytes", ErrFormat, len(c.buf))
	}
	if c.err != nil {
		return nil, c.err
	}
	return ek, nil
}

// CiphertextSize is the encoded size of a degree-1 ciphertext at level
// (AppendCiphertext).
func (pr *Params) CiphertextSize(level int) int {
	size := 1 + noiseSize
	for i := 0; i <= level && i < len(pr.q); i++ {
		size += 2 * pr.n * rowWidth(pr.q[i])
	}
	return size
}

// AppendCiphertext appends the encoding of the degree-1 ciphertext ct.
func (pr *Params) AppendCiphertext(buf []byte, ct *Ciphertext) ([]byte, error) {
	if ct.Degree() != 1 {
		return nil, fmt.Errorf("bgv: cannot encode a degree-%d ciphertext (relinearize first)", ct.Degree())
	}
	le := binary.LittleEndian
	a := ct.Noise
	buf = append(buf, byte(ct.Level()))
	buf = le.AppendUint64(buf, math.Float64bits(a.hi))
	buf = le.AppendUint64(buf, math.Float64bits(a.lo))
	buf = append(buf, boolBit(a.set, 1)|boolBit(a.computed, 2))
	for _, x := range a.anc {
		buf = le.AppendUint64(buf, x)
	}
	buf = appendRows(buf, pr.ringQ, ct.Value[0])
	return appendRows(buf, pr.ringQ, ct.Value[1]), nil
}

func boolBit(b bool, bit byte) byte {
	if b {
		return bit
	}
	return 0
}

// DecodeCiphertext decodes one ciphertext of pr from data, which must be
// exactly CiphertextSize of its level.
func (pr *Params) DecodeCiphertext(data []byte) (*Ciphertext, error) {
	c := &cursor{buf: data}
	level := int(c.u8())
	if c.err == nil && level > pr.MaxLevel() {
		return nil, fmt.Errorf("%w: ciphertext level %d above the top level %d", ErrFormat, level, pr.MaxLevel())
	}
	if c.err == nil && len(data) != pr.CiphertextSize(level) {
		return nil, fmt.Errorf("%w: level-%d ciphertext is %d bytes, want %d", ErrFormat, level, len(data), pr.CiphertextSize(level))
	}
	var a NoiseEstimate
	a.hi = math.Float64frombits(c.u64())
	a.lo = math.Float64frombits(c.u64())
	flags := c.u8()
	a.set, a.computed = flags&1 != 0, flags&2 != 0
	for i := range a.anc {
		a.anc[i] = c.u64()
	}
	if c.err == nil && (flags&^3 != 0 || math.IsNaN(a.hi) || math.IsNaN(a.lo)) {
		return nil, fmt.Errorf("%w: malformed noise estimate", ErrFormat)
	}
	ct := pr.NewCiphertext()
	setLevel(ct, level)
	readRows(c, pr.ringQ, ct.Value[0])
	readRows(c, pr.ringQ, ct.Value[1])
	if c.err != nil {
		return nil, c.err
	}
	ct.Noise = a
	return ct, nil
}

// CopyCiphertext returns a copy of the degree-1 ciphertext ct (so that it
// can be switched down without touching ct), with rows for ct's level.
func (pr *Params) CopyCiphertext(ct *Ciphertext) *Ciphertext {
	out := pr.NewCiphertext()
	copyTo(ct, out)
	return out
}
