package cbs

import (
	"errors"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// SecretKey holds the two secrets of a parameter set: the ring key z
// (degree N, ternary), under which wide bits and every RLWE/RGSW
// ciphertext are encrypted, and the small LWE key s (dimension n, ternary)
// the blind rotation runs on.
type SecretKey struct {
	params Params
	z      []int64    // ring key coefficients
	s      []int64    // LWE key
	zNTT   ring.Poly2 // z in the NTT domain
}

// NewSecretKey draws a fresh secret key from crypto/rand.
func NewSecretKey(p Params) (*SecretKey, error) {
	if !p.valid() {
		return nil, errors.New("cbs: NewSecretKey: zero Params (use NewParams)")
	}
	smp, err := newCryptoSampler(p.lit.Sigma)
	if err != nil {
		return nil, err
	}
	sk := &SecretKey{params: p, z: make([]int64, p.ringN), s: make([]int64, p.lit.LWEDim)}
	for i := range sk.z {
		sk.z[i] = smp.ternary()
	}
	for i := range sk.s {
		sk.s[i] = smp.ternary()
	}
	r := p.ring
	sk.zNTT = r.NewPoly()
	r.SetCentered(sk.z, sk.zNTT)
	r.Forward(sk.zNTT, sk.zNTT)
	return sk, nil
}

// Params returns the key's parameter set.
func (sk *SecretKey) Params() Params { return sk.params }

// RGSW is an RGSW ciphertext of a bit b under z in the NTT domain, with
// gadget g_0..g_{ℓ-1}: rows j < ℓ encrypt b·g_j, rows ℓ + j encrypt
// b·g_j·z (as RLWE pairs (B, A) with phase B + A·z). B[j], A[j] are row j's
// two polynomials, laid out for ring.RNS2.DotRows.
type RGSW struct {
	B, A []ring.Poly2
}

func newRGSW(r *ring.RNS2, levels int) *RGSW {
	g := &RGSW{B: make([]ring.Poly2, 2*levels), A: make([]ring.Poly2, 2*levels)}
	for i := range g.B {
		g.B[i], g.A[i] = r.NewPoly(), r.NewPoly()
	}
	return g
}

// ksKey is a ring key-switching key RLWE'_z(g_j·w), j < ℓ (NTT domain).
type ksKey struct {
	B, A []ring.Poly2
}

// EvaluationKey holds the public keys of circuit bootstrapping: the LWE
// key switch z -> s, the blind-rotation keys (GINX: RGSW(s_i = 1) and
// RGSW(s_i = -1) per i), one trace key per automorphism X -> X^(2^k+1) and
// the scheme-switch key RLWE'(z²). Immutable after generation.
type EvaluationKey struct {
	params  Params
	seed    [32]byte // public seed of every uniform part (keyseed.go)
	ks      []uint64 // LWE key switch: rows (i, d, v) of ksWords words, 4 uint16 lanes each
	ksWords int
	brk     [][2]*RGSW
	trace   []ksKey // trace[k-1] switches from τ_{2^k+1}(z), k = 1..LogN
	ss      ksKey

	// Gate mode (GenGateEvaluationKey, gate_keys.go): gateN = N_g > 0, ks
	// is nil (the gate engine key-switches itself) and lift is the lift key
	// RLWE'_z(Z_g) for gate ciphertexts mod 2^gateLogQ.
	lift     ksKey
	gateN    int
	gateLogQ uint
}

// Params returns the key's parameter set.
func (ek *EvaluationKey) Params() Params { return ek.params }

// SizeBytes returns the key's size in memory.
func (ek *EvaluationKey) SizeBytes() int {
	p := ek.params
	poly := 2 * 4 * p.ringN
	n := len(ek.ks) * 8
	n += len(ek.brk) * 2 * 4 * p.lit.BR.Digits * poly
	n += (len(ek.trace) + 1) * 2 * p.lit.Trace.Digits * poly
	n += 2 * len(ek.lift.B) * poly
	return n
}

// encryptRLWE writes an RLWE encryption (B, A) of msg under z, NTT domain
// (msg in the NTT domain; nil is 0): A drawn uniformly from smp, then
// encryptRLWEWithA.
func encryptRLWE(sk *SecretKey, smp *sampler, msg ring.Poly2, e []int64, B, A ring.Poly2) {
	smp.uniformPoly(sk.params.ring, A)
	encryptRLWEWithA(sk, smp, msg, e, B, A)
}

// encryptRLWEWithA sets B = e + msg - A·z for the given uniform A (NTT
// domain), e drawn from smp.
func encryptRLWEWithA(sk *SecretKey, smp *sampler, msg ring.Poly2, e []int64, B, A ring.Poly2) {
	r := sk.params.ring
	smp.gaussianVec(e)
	r.SetCentered(e, B)
	r.Forward(B, B)
	if msg[0] != nil {
		r.Add(B, msg, B)
	}
	tmp := r.NewPoly()
	r.MulCoeffs(A, sk.zNTT, tmp)
	r.Sub(B, tmp, B)
}

// encryptRGSWBit writes RGSW(bit) with gadget g (NTT domain); with drawA
// the A polynomials are drawn from smp, otherwise out.A already holds them
// (the evaluation key's seeded parts).
func encryptRGSWBit(sk *SecretKey, smp *sampler, bit int, g Gadget, e []int64, out *RGSW, drawA bool) {
	r := sk.params.ring
	l := g.Digits
	msg := r.NewPoly()
	enc := func(B, A ring.Poly2) {
		if drawA {
			smp.uniformPoly(r, A)
		}
		encryptRLWEWithA(sk, smp, msg, e, B, A)
	}
	for j := 0; j < l; j++ {
		gj := uint64(0)
		if bit != 0 {
			gj = r.GadgetConst(g.LogB, j, g.Drop)
		}
		for k := range msg[0] { // the constant gj in the NTT domain is gj in every slot
			msg[0][k] = uint32(gj % uint64(r.Q0))
			msg[1][k] = uint32(gj % uint64(r.Q1))
		}
		enc(out.B[j], out.A[j])
		r.MulCoeffs(msg, sk.zNTT, msg)
		enc(out.B[l+j], out.A[l+j])
	}
}

// fillKSKey sets the B parts of k to RLWE'_z(g_j·w) for w in the NTT
// domain, k.A holding the seeded uniform parts.
func fillKSKey(sk *SecretKey, smp *sampler, w ring.Poly2, g Gadget, e []int64, k *ksKey) {
	r := sk.params.ring
	msg := r.NewPoly()
	for j := range k.B {
		r.MulScalar(w, r.GadgetConst(g.LogB, j, g.Drop), msg)
		encryptRLWEWithA(sk, smp, msg, e, k.B[j], k.A[j])
	}
}

// GenEvaluationKey generates the evaluation key of sk: a public seed and
// the secret-dependent parts from crypto/rand, the uniform parts expanded
// from the seed (keyseed.go). For STD128_CBS it takes a few seconds and
// ~253 MB (the LWE key switch 107 MB, the blind-rotation keys 146 MB).
func GenEvaluationKey(sk *SecretKey) (*EvaluationKey, error) {
	if sk == nil || !sk.params.valid() {
		return nil, errors.New("cbs: GenEvaluationKey: nil or invalid secret key")
	}
	p := sk.params
	smp, err := newCryptoSampler(p.lit.Sigma)
	if err != nil {
		return nil, err
	}
	seed, err := newSeed()
	if err != nil {
		return nil, err
	}
	ek := newEvaluationKeyShape(p, seed, 0)
	regenPublic(ek)
	fillLWEKeySwitch(sk, smp, ek)
	fillRingKeys(sk, smp, ek)
	return ek, nil
}

// fillRingKeys sets the b parts of the blind-rotation, trace and
// scheme-switch keys of ek (A parts already regenerated from the seed).
func fillRingKeys(sk *SecretKey, smp *sampler, ek *EvaluationKey) {
	p := sk.params
	r := p.ring
	e := make([]int64, p.ringN)
	for i := range ek.brk {
		for k, v := range [2]int64{1, -1} {
			bit := 0
			if sk.s[i] == v {
				bit = 1
			}
			encryptRGSWBit(sk, smp, bit, p.lit.BR, e, ek.brk[i][k], false)
		}
	}
	zc := r.NewPoly()
	r.SetCentered(sk.z, zc)
	w := r.NewPoly()
	for k := 1; k <= p.lit.LogN; k++ {
		r.AutomorphismCoeff(zc, uint64(1)<<uint(k)+1, w)
		r.Forward(w, w)
		fillKSKey(sk, smp, w, p.lit.Trace, e, &ek.trace[k-1])
	}
	r.MulCoeffs(sk.zNTT, sk.zNTT, w)
	fillKSKey(sk, smp, w, p.lit.Trace, e, &ek.ss)
}

// ksWidth returns the number of 4-lane words of one LWE key-switching row
// (n coefficients and b).
func ksWidth(n int) int { return (n + 1 + 3) / 4 }

// fillLWEKeySwitch sets lane n (b) of every LWE key-switching row (i, d, v),
// v = 1..B_ks/2: with the seeded a in lanes 0..n-1, the row encrypts
// v·B_ks^d·z_i under s mod Q_ks (phase b + <a, s>), held mod 2^16 in 16-bit
// lanes (Q_ks divides 2^16, so lane arithmetic reduces consistently).
func fillLWEKeySwitch(sk *SecretKey, smp *sampler, ek *EvaluationKey) {
	p := sk.params
	n := p.lit.LWEDim
	V := ksValues(p)
	W := ek.ksWords
	mask := uint64(p.qks - 1)
	for i := 0; i < p.ringN; i++ {
		for d := 0; d < p.digKS; d++ {
			for v := 1; v <= V; v++ {
				row := ek.ks[((i*p.digKS+d)*V+v-1)*W:][:W]
				var dot uint64
				for j := 0; j < n; j++ {
					a := (row[j/4] >> (16 * uint(j%4))) & 0xffff
					dot += a * uint64(sk.s[j]) // wraps mod 2^64: fine mod Q_ks
				}
				msg := uint64(v) << uint(d*p.lit.LogBKS) * uint64(sk.z[i])
				b := (uint64(smp.gaussian()) + msg - dot) & mask
				sh := 16 * uint(n%4)
				row[n/4] = row[n/4]&^(0xffff<<sh) | b<<sh
			}
		}
	}
}
