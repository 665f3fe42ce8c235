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
	ks      []uint64 // LWE key switch: rows (i, d, v) of ksWords words, 4 uint16 lanes each
	ksWords int
	brk     [][2]*RGSW
	trace   []ksKey // trace[k-1] switches from τ_{2^k+1}(z), k = 1..LogN
	ss      ksKey
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
	return n
}

// encryptRLWE writes an RLWE encryption (B, A) of msg under z, NTT domain
// (msg in the NTT domain; nil is 0): A uniform, B = e + msg - A·z.
func encryptRLWE(sk *SecretKey, smp *sampler, msg ring.Poly2, e []int64, B, A ring.Poly2) {
	r := sk.params.ring
	smp.uniformPoly(r, A)
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

// encryptRGSWBit writes RGSW(bit) with gadget g (NTT domain).
func encryptRGSWBit(sk *SecretKey, smp *sampler, bit int, g Gadget, e []int64, out *RGSW) {
	r := sk.params.ring
	l := g.Digits
	msg := r.NewPoly()
	for j := 0; j < l; j++ {
		gj := uint64(0)
		if bit != 0 {
			gj = r.GadgetConst(g.LogB, j, g.Drop)
		}
		for k := range msg[0] { // the constant gj in the NTT domain is gj in every slot
			msg[0][k] = uint32(gj % uint64(r.Q0))
			msg[1][k] = uint32(gj % uint64(r.Q1))
		}
		encryptRLWE(sk, smp, msg, e, out.B[j], out.A[j])
		r.MulCoeffs(msg, sk.zNTT, msg)
		encryptRLWE(sk, smp, msg, e, out.B[l+j], out.A[l+j])
	}
}

// genKSKey writes RLWE'_z(g_j·w) for w in the NTT domain.
func genKSKey(sk *SecretKey, smp *sampler, w ring.Poly2, g Gadget, e []int64) ksKey {
	r := sk.params.ring
	k := ksKey{B: make([]ring.Poly2, g.Digits), A: make([]ring.Poly2, g.Digits)}
	msg := r.NewPoly()
	for j := range k.B {
		k.B[j], k.A[j] = r.NewPoly(), r.NewPoly()
		r.MulScalar(w, r.GadgetConst(g.LogB, j, g.Drop), msg)
		encryptRLWE(sk, smp, msg, e, k.B[j], k.A[j])
	}
	return k
}

// GenEvaluationKey generates the evaluation key of sk (randomness from
// crypto/rand). For STD128_CBS it takes a few seconds and ~360 MB (the
// LWE key switch 213 MB, the blind-rotation keys 146 MB).
func GenEvaluationKey(sk *SecretKey) (*EvaluationKey, error) {
	if sk == nil || !sk.params.valid() {
		return nil, errors.New("cbs: GenEvaluationKey: nil or invalid secret key")
	}
	p := sk.params
	r := p.ring
	smp, err := newCryptoSampler(p.lit.Sigma)
	if err != nil {
		return nil, err
	}
	ek := &EvaluationKey{params: p}
	e := make([]int64, p.ringN)
	genLWEKeySwitch(sk, smp, ek)
	n := p.lit.LWEDim
	ek.brk = make([][2]*RGSW, n)
	for i := 0; i < n; i++ {
		for k, v := range [2]int64{1, -1} {
			g := newRGSW(r, p.lit.BR.Digits)
			bit := 0
			if sk.s[i] == v {
				bit = 1
			}
			encryptRGSWBit(sk, smp, bit, p.lit.BR, e, g)
			ek.brk[i][k] = g
		}
	}
	zc := r.NewPoly()
	r.SetCentered(sk.z, zc)
	w := r.NewPoly()
	ek.trace = make([]ksKey, p.lit.LogN)
	for k := 1; k <= p.lit.LogN; k++ {
		r.AutomorphismCoeff(zc, uint64(1)<<uint(k)+1, w)
		r.Forward(w, w)
		ek.trace[k-1] = genKSKey(sk, smp, w, p.lit.Trace, e)
	}
	r.MulCoeffs(sk.zNTT, sk.zNTT, w)
	ek.ss = genKSKey(sk, smp, w, p.lit.Trace, e)
	return ek, nil
}

// ksWidth returns the number of 4-lane words of one LWE key-switching row
// (n coefficients and b).
func ksWidth(n int) int { return (n + 1 + 3) / 4 }

// genLWEKeySwitch fills ek.ks: row (i, d, v), v = 1..B_ks-1, is an LWE
// encryption under s mod Q_ks of v·B_ks^d·z_i (lanes 0..n-1: a, lane n: b,
// phase b + <a, s>), held mod 2^16 in 16-bit lanes (Q_ks divides 2^16, so
// lane arithmetic reduces consistently).
func genLWEKeySwitch(sk *SecretKey, smp *sampler, ek *EvaluationKey) {
	p := sk.params
	n := p.lit.LWEDim
	B := 1 << p.lit.LogBKS
	W := ksWidth(n)
	ek.ksWords = W
	rows := p.ringN * p.digKS * (B - 1)
	ek.ks = make([]uint64, rows*W)
	mask := uint64(p.qks - 1)
	lane := make([]uint64, 4*W)
	for i := 0; i < p.ringN; i++ {
		for d := 0; d < p.digKS; d++ {
			for v := 1; v < B; v++ {
				for j := range lane {
					lane[j] = 0
				}
				var dot uint64
				for j := 0; j < n; j++ {
					a := smp.c.Uint64() & mask
					lane[j] = a
					dot += a * uint64(sk.s[j]) // wraps mod 2^64: fine mod Q_ks
				}
				msg := uint64(v) << uint(d*p.lit.LogBKS) * uint64(sk.z[i])
				lane[n] = (uint64(smp.gaussian()) + msg - dot) & mask
				row := ek.ks[((i*p.digKS+d)*(B-1)+v-1)*W:]
				for w := 0; w < W; w++ {
					row[w] = lane[4*w] | lane[4*w+1]<<16 | lane[4*w+2]<<32 | lane[4*w+3]<<48
				}
			}
		}
	}
}
