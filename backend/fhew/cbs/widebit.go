package cbs

import (
	"errors"
	"fmt"
	"math/bits"
)

// WideBit is an encrypted bit between tables: an LWE ciphertext of
// dimension N modulo Q under the ring key z (as a coefficient vector),
// phase B + Σ A_i·z_i = b·round(Q/2) + e. XOR is addition, NOT adds
// round(Q/2); a table output is one by sample extraction.
type WideBit struct {
	A []uint64 // N residues mod Q
	B uint64
}

// NewWideBit returns a zero (trivial 0) wide bit for p.
func NewWideBit(p Params) *WideBit { return &WideBit{A: make([]uint64, p.ringN)} }

// checkWide reports whether w has p's shape.
func checkWide(p Params, w *WideBit) error {
	if w == nil || len(w.A) != p.ringN {
		return fmt.Errorf("cbs: wide bit of dimension %d, want %d", wideLen(w), p.ringN)
	}
	return nil
}

func wideLen(w *WideBit) int {
	if w == nil {
		return -1
	}
	return len(w.A)
}

// addModQ returns a + b mod q for a, b < q < 2^63.
func addModQ(a, b, q uint64) uint64 {
	s := a + b
	if s >= q {
		s -= q
	}
	return s
}

// Encryptor encrypts wide bits under a secret key. Not safe for concurrent
// use (it owns its random stream).
type Encryptor struct {
	sk  *SecretKey
	smp *sampler
}

// NewEncryptor returns an encryptor seeded from crypto/rand.
func NewEncryptor(sk *SecretKey) (*Encryptor, error) {
	if sk == nil || !sk.params.valid() {
		return nil, errors.New("cbs: NewEncryptor: nil or invalid secret key")
	}
	smp, err := newCryptoSampler(sk.params.lit.Sigma)
	if err != nil {
		return nil, err
	}
	return &Encryptor{sk: sk, smp: smp}, nil
}

// Encrypt writes a fresh encryption of bit (0 or 1) into out.
func (enc *Encryptor) Encrypt(bit bool, out *WideBit) error {
	p := enc.sk.params
	if err := checkWide(p, out); err != nil {
		return err
	}
	Q := p.q
	var dot uint64
	for i := range out.A {
		a := enc.smp.uniformMod(Q)
		out.A[i] = a
		switch enc.sk.z[i] {
		case 1:
			dot = addModQ(dot, a, Q)
		case -1:
			dot = addModQ(dot, Q-a, Q)
		}
	}
	e := enc.smp.gaussian()
	b := (Q - dot) % Q
	b = addModQ(b, uint64(e+int64(Q))%Q, Q)
	if bit {
		b = addModQ(b, p.Delta(), Q)
	}
	out.B = b
	return nil
}

// Phase returns the centred phase B + <A, z> of w (in (-Q/2, Q/2]).
func (sk *SecretKey) Phase(w *WideBit) (int64, error) {
	p := sk.params
	if err := checkWide(p, w); err != nil {
		return 0, err
	}
	Q := p.q
	ph := w.B % Q
	for i, a := range w.A {
		switch sk.z[i] {
		case 1:
			ph = addModQ(ph, a%Q, Q)
		case -1:
			ph = addModQ(ph, Q-a%Q, Q)
		}
	}
	if ph > Q/2 {
		return int64(ph) - int64(Q), nil
	}
	return int64(ph), nil
}

// Decrypt returns the bit w encrypts (nearest of 0 and Q/2).
func (sk *SecretKey) Decrypt(w *WideBit) (bool, error) {
	ph, err := sk.Phase(w)
	if err != nil {
		return false, err
	}
	if ph < 0 {
		ph = -ph
	}
	return uint64(ph) > sk.params.q/4, nil
}

// NoiseOf returns the error of w as an encryption of bit (centred).
func (sk *SecretKey) NoiseOf(w *WideBit, bit bool) (int64, error) {
	ph, err := sk.Phase(w)
	if err != nil {
		return 0, err
	}
	Q := sk.params.q
	u := uint64(ph+int64(Q)) % Q
	if bit {
		u = (u + Q - sk.params.Delta()) % Q
	}
	if u > Q/2 {
		return int64(u) - int64(Q), nil
	}
	return int64(u), nil
}

// XorInto adds in to acc (acc ← acc ⊕ in); both must have p's shape.
func XorInto(p Params, acc, in *WideBit) error {
	if err := checkWide(p, acc); err != nil {
		return err
	}
	if err := checkWide(p, in); err != nil {
		return err
	}
	Q := p.q
	for i, a := range in.A {
		acc.A[i] = addModQ(acc.A[i], a, Q)
	}
	acc.B = addModQ(acc.B, in.B, Q)
	return nil
}

// NotInPlace flips the bit w encrypts.
func NotInPlace(p Params, w *WideBit) { w.B = addModQ(w.B%p.q, p.Delta(), p.q) }

// modSwitchCoeff returns round(x·2^logQKS/Q) mod 2^logQKS, exactly.
func modSwitchCoeff(x, Q uint64, logQKS uint) uint64 {
	hi, lo := bits.Mul64(x, uint64(1)<<logQKS)
	lo, c := bits.Add64(lo, Q/2, 0)
	hi += c
	q, _ := bits.Div64(hi, lo, Q)
	return q & (uint64(1)<<logQKS - 1)
}
