package fhew

import (
	"fmt"
	"unsafe"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// Ciphertext is a gate-level LWE ciphertext (β, α) in Z_{Q_ks}^{N+1} under
// the RLWE secret z read as a vector (the key sample extraction yields),
// with phase β + <α, z> = m·Q_ks/P + e for a bit m (P = Params.Slots, 4 by
// default; the paper's convention,
// section 2.2).
//
// Why dimension N and modulus Q_ks between gates: the bootstrap's pipeline
// (blind rotation, sample extraction, mod switch Q -> Q_ks, LWE key switch
// N -> n, round to the blind-rotation modulus) is rotated so that a gate
// first forms its exact linear combination Σ w_i·x_i at (N, Q_ks) and only
// then key-switches and rounds, once. The key-switching noise (N·d_ks·σ²,
// the largest term at STD128_LMKCDEY_G) and the rounding noise are then
// added once per gate instead of once per input (times w_i²). Entries are
// kept reduced modulo Q_ks, a power of two dividing 2^16, so uint16
// arithmetic wraps correctly.
type Ciphertext struct {
	// B is β.
	B uint16
	// A is α, of length N.
	A []uint16

	// acc and accPlan are set by a multi-output bootstrap (ir.OpMLUT,
	// multilut.go): its accumulator (coefficient domain, b then a) and plan,
	// from which the group's other outputs (ir.OpMOut) are extracted.
	acc     []uint32
	accPlan *multiPlan
	// sel is set by an ir.OpSel node (Backend worker): the select form of
	// this ciphertext's bit, read by the ir.OpCMux nodes on it; selOK says
	// it is current (a recycled ciphertext keeps the buffer, not the value).
	sel   *Selector
	selOK bool
}

// NewCiphertext allocates a zero ciphertext for p.
func NewCiphertext(p Params) *Ciphertext { return &Ciphertext{A: make([]uint16, p.N)} }

// CopyFrom sets c to a copy of other.
func (c *Ciphertext) CopyFrom(other *Ciphertext) {
	c.B = other.B
	copy(c.A, other.A)
}

// SecretKey holds the LWE secret s (dimension n) and the RLWE secret z
// (degree N). It never leaves the client.
type SecretKey struct {
	params Params
	// s holds the LWE secret coefficients, z the RLWE ones (signed).
	s, z []int32
	// zNTT is z mod Q in the NTT domain.
	zNTT []uint32
	// cbs is the CMux gadget's circuit-bootstrapping key (same s, its own
	// ring secret z_c); nil on sets without the gadget.
	cbs *cbs.SecretKey
}

// NewSecretKey draws a fresh secret key from crypto/rand.
func NewSecretKey(p Params) (*SecretKey, error) {
	seed, err := NewSeed()
	if err != nil {
		return nil, err
	}
	return newSecretKeyFromSeed(p, seed)
}

// newSecretKeyFromSeed derives a secret key deterministically (tests),
// except for the CMux gadget's ring secret z_c, which package cbs draws
// from crypto/rand.
func newSecretKeyFromSeed(p Params, seed Seed) (*SecretKey, error) {
	r := newPRNG(seed.derive(domainSecret, 0))
	sk := &SecretKey{params: p, s: make([]int32, p.n), z: make([]int32, p.N), zNTT: make([]uint32, p.N)}
	for i := range sk.s {
		sk.s[i] = int32(r.secret(p.lit.LWESecret, p.gauss))
	}
	for i := range sk.z {
		sk.z[i] = int32(r.secret(p.lit.RLWESecret, p.gauss))
	}
	for i, v := range sk.z {
		sk.zNTT[i] = p.ntt.FromInt64(int64(v))
	}
	p.ntt.Forward(sk.zNTT, sk.zNTT)
	if err := sk.attachCBS(); err != nil {
		return nil, err
	}
	return sk, nil
}

// Params returns the key's parameter set.
func (sk *SecretKey) Params() Params { return sk.params }

// Encryptor encrypts bits under a secret key. It owns a CSPRNG stream, so
// it is not safe for concurrent use; make one per goroutine.
type Encryptor struct {
	sk *SecretKey
	r  *prng
}

// NewEncryptor returns an encryptor drawing its randomness from a fresh
// crypto/rand seed.
func NewEncryptor(sk *SecretKey) (*Encryptor, error) {
	seed, err := NewSeed()
	if err != nil {
		return nil, err
	}
	return &Encryptor{sk: sk, r: newPRNG(seed)}, nil
}

// Encrypt sets out to a fresh encryption of bit (0 or 1) at Q_ks under z:
// β = -<α, z> + e + bit·Q_ks/P with α uniform and e Gaussian.
func (enc *Encryptor) Encrypt(bit int, out *Ciphertext) {
	p := enc.sk.params
	enc.r.uniform16(out.A)
	mask := uint16(p.qks - 1)
	var dot uint16
	for i, a := range out.A {
		a &= mask
		out.A[i] = a
		dot += a * uint16(enc.sk.z[i])
	}
	e := uint16(enc.r.gaussian(p.gauss))
	out.B = (-dot + e + uint16(bit&1)*uint16(p.qks/p.slots)) & mask
}

// EncryptNew allocates and returns an encryption of bit.
func (enc *Encryptor) EncryptNew(bit int) *Ciphertext {
	c := NewCiphertext(enc.sk.params)
	enc.Encrypt(bit, c)
	return c
}

// Phase returns β + <α, z> mod Q_ks, centred in [-Q_ks/2, Q_ks/2).
func (sk *SecretKey) Phase(c *Ciphertext) int {
	p := sk.params
	v := c.B
	for i, a := range c.A {
		v += a * uint16(sk.z[i])
	}
	x := int(v) & (p.qks - 1)
	if x >= p.qks/2 {
		x -= p.qks
	}
	return x
}

// Decrypt returns the bit c encrypts: the phase rounded to the nearest
// multiple of Q_ks/P. A phase nearer to another multiple than 0 or Q_ks/P
// is no valid encoding and is reported as an error (the noise overflowed).
func (sk *SecretKey) Decrypt(c *Ciphertext) (int, error) {
	p := sk.params
	ph := sk.Phase(c)
	unit := p.qks / p.slots
	v := ((ph + unit/2) & (p.qks - 1)) / unit
	if v > 1 {
		return 0, fmt.Errorf("fhew: decryption failed: phase %d of %d is no bit encoding", ph, p.qks)
	}
	return v, nil
}

// NoiseOf returns the centred error of c assuming it encrypts bit.
func (sk *SecretKey) NoiseOf(c *Ciphertext, bit int) int {
	p := sk.params
	x := (sk.Phase(c) - bit*p.qks/p.slots) & (p.qks - 1)
	if x >= p.qks/2 {
		x -= p.qks
	}
	return x
}

// Not sets out = NOT(a): Q_ks/P - a, no bootstrap and no noise growth. out
// may alias a.
func Not(p Params, a, out *Ciphertext) {
	mask := uint16(p.qks - 1)
	for i, x := range a.A {
		out.A[i] = -x & mask
	}
	out.B = (uint16(p.qks/p.slots) - a.B) & mask
}

// keySwitchKey is the LWE key-switching key from z (dimension N) to s
// (dimension n) modulo Q_ks with signed digits of base B_ks: entry
// (i, j, ν) for ν in [1, B_ks/2] is LWE_s(ν·B_ks^j·z_i), stored as
// (β, α_0..α_{n-1}) in uint16. Digit ν = 0 needs no entry and negative
// digits subtract the entry of -ν, which halves the key against unsigned
// digits (section 2.4, KeySwitchGen).
//
// Rows are padded to a multiple of 32 entries (64 bytes) so that keySwitch
// can add them with AVX-512BW, or four uint16 lanes at a time in one uint64
// (SWAR) in the fallback.
type keySwitchKey struct {
	half  int // B_ks/2
	width int // row length: n+1 rounded up to a multiple of 32
	data  []uint16
}

func ksWidth(n int) int { return (n + 1 + 31) &^ 31 }

func (k *keySwitchKey) entry(p *params, i, j, nu int) []uint16 {
	w := k.width
	off := ((i*p.dks+j)*k.half + nu - 1) * w
	return k.data[off : off+w : off+w]
}

// words views a row as uint64 words (four uint16 lanes each). Rows start at
// multiples of 8 bytes of an 8-byte-aligned allocation.
func words(row []uint16) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(&row[0])), len(row)/4)
}

// newKeySwitchKey allocates an empty key for p.
func newKeySwitchKey(p *params) *keySwitchKey {
	half := 1 << (p.logBKS - 1)
	w := ksWidth(p.n)
	// Allocate as uint64 so the rows are 8-byte aligned for words().
	raw := make([]uint64, p.N*p.dks*half*w/4)
	return &keySwitchKey{half: half, width: w, data: unsafe.Slice((*uint16)(unsafe.Pointer(&raw[0])), len(raw)*4)}
}

// genKeySwitchKey builds the key; the α parts come from the seeded stream
// so that a key file may store only the β parts.
func genKeySwitchKey(sk *SecretKey, seed, noiseSeed Seed) *keySwitchKey {
	p := sk.params.params
	k := newKeySwitchKey(p)
	half := k.half
	pub := newPRNG(seed.derive(domainKSK, 0))
	noise := newPRNG(noiseSeed.derive(domainKSK, 0))
	mask := uint16(p.qks - 1)
	s := make([]uint16, p.n)
	for i, v := range sk.s {
		s[i] = uint16(v)
	}
	for i := 0; i < p.N; i++ {
		zi := uint16(sk.z[i])
		for j := 0; j < p.dks; j++ {
			pw := uint16(1) << uint(j*p.logBKS)
			for nu := 1; nu <= half; nu++ {
				e := k.entry(p, i, j, nu)
				a := e[1 : p.n+1]
				pub.uniform16(a)
				var dot uint16
				for t := range a {
					a[t] &= mask
					dot += a[t] * s[t]
				}
				errv := uint16(noise.gaussian(p.gauss))
				e[0] = (-dot + errv + uint16(nu)*pw*zi) & mask
			}
		}
	}
	return k
}

// keySwitch sets out = KeySwitch_{z->s}(β, α) where in holds β at index 0
// and α_0..α_{N-1} after it, all mod Q_ks, and out gets β' then α'_0..α'_{n-1}.
// Section 2.4: out = (β, 0) + Σ_i Σ_j α_{i,j}·ksk(i, j) with
// α_i = Σ_j α_{i,j} B_ks^j in signed digits. acc is scratch of
// ksWidth(n)/4 words, offs of N·d_ks entries. The first pass turns the
// digits into row offsets (negated for negative digits); the second sums the
// rows, wrapping mod 2^16 lane by lane, which is exact mod Q_ks because Q_ks
// divides 2^16.
//
// sink receives the value of the pure-Go loop's read-ahead loads (see
// ksAccSWAR); it means nothing.
func keySwitch(p *params, k *keySwitchKey, in []uint16, out []uint16, acc []uint64, offs []int32, sink *uint64) {
	acc = acc[:k.width/4]
	clear(acc)
	acc[0] = uint64(in[0]) // β in lane 0 of word 0
	count := ksOffsets(p, k, in, offs)
	if hasKSVec && count > 0 {
		ksAccAVX512((*uint16)(unsafe.Pointer(&acc[0])), &k.data[0], &offs[0], count, k.width/32)
	} else {
		narrow := p.qks <= 1<<15
		if narrow {
			acc[0] &= uint64(p.qks - 1) // every lane below 2^15
		}
		*sink = ksAccSWAR(k, acc, offs[:count], narrow)
	}
	mask := uint16(p.qks - 1)
	out = out[:p.n+1]
	for t := range out {
		out[t] = uint16(acc[t/4]>>(16*uint(t%4))) & mask
	}
}

// ksOffsets writes the offset of the row of every non-zero signed digit of
// α into offs (^offset for a negative digit) and returns how many.
func ksOffsets(p *params, k *keySwitchKey, in []uint16, offs []int32) int {
	logB := uint(p.logBKS)
	bmask := int32(1<<logB) - 1
	halfB := int32(1) << (logB - 1)
	halfQ := int32(p.qks / 2)
	qks := int32(p.qks)
	w := int32(k.width)
	half := int32(k.half)
	dks := p.dks
	count := 0
	offs = offs[:p.N*dks]
	for i, a := range in[1 : p.N+1] {
		c := int32(a) & (qks - 1)
		if c >= halfQ {
			c -= qks
		}
		base := int32(i*dks) * half
		for j := 0; j < dks; j++ {
			var dig int32
			if j == dks-1 {
				dig = c
			} else {
				dig = ((c + halfB) & bmask) - halfB
				c = (c - dig) >> logB
			}
			if dig == 0 {
				continue
			}
			row := base + int32(j)*half
			if dig > 0 {
				offs[count] = (row + dig - 1) * w
			} else {
				offs[count] = ^((row - dig - 1) * w)
			}
			count++
		}
	}
	return count
}

// ksAccSWAR is the portable row summation: four uint16 lanes per uint64.
//
// The rows are scattered over a key of 40-120 MB, so each one comes from main
// memory, and the summing loop is too long (about 900 instructions a row)
// for the CPU to run ahead into the next row by itself: the loads of a row
// waited for memory one cache line after another. So the loop touches the
// cache lines of the row ksAhead positions further on first (one load per
// 64 bytes, XORed into the returned value so that the compiler keeps them):
// their misses are then in flight together while the current row is summed.
// Pure Go has no prefetch instruction; these are ordinary loads.
//
// With Q_ks <= 2^15 (narrow; key entries and acc lanes then below 2^15) the
// lanes are summed mod 2^15 instead, which is still exact mod Q_ks: bit 15
// of each lane is a guard that takes the carry and is cleared after every
// row (x + y, or x + 2^15 - y for a subtracted row, stays below 2^16), two
// or three operations per word instead of six.
func ksAccSWAR(k *keySwitchKey, acc []uint64, offs []int32, narrow bool) (touched uint64) {
	const H = 0x8000800080008000
	const M15 = 0x7fff7fff7fff7fff
	const ksAhead = 3
	w := k.width
	for idx, off := range offs {
		if idx+ksAhead < len(offs) {
			o := offs[idx+ksAhead]
			o ^= o >> 31 // ^o for a negative (subtracted) row
			next := k.data[o : int(o)+w]
			for t := 0; t < len(next); t += 32 { // one uint16 per 64-byte line
				touched ^= uint64(next[t])
			}
		}
		switch {
		case narrow && off >= 0:
			e := words(k.data[off : int(off)+w])
			e = e[:len(acc)]
			for t, y := range e {
				acc[t] = (acc[t] + y) & M15
			}
		case narrow:
			o := int(^off)
			e := words(k.data[o : o+w])
			e = e[:len(acc)]
			for t, y := range e {
				acc[t] = (acc[t] + H - y) & M15
			}
		case off >= 0:
			e := words(k.data[off : int(off)+w])
			e = e[:len(acc)]
			for t, y := range e {
				x := acc[t]
				acc[t] = ((x &^ H) + (y &^ H)) ^ ((x ^ y) & H)
			}
		default:
			o := int(^off)
			e := words(k.data[o : o+w])
			e = e[:len(acc)]
			for t, y := range e {
				x := acc[t]
				acc[t] = ((x | H) - (y &^ H)) ^ ((x ^ ^y) & H)
			}
		}
	}
	return touched
}
