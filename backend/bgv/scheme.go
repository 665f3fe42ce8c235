package bgv

import (
	crand "crypto/rand"
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// This file holds keys, encryption and decryption with plaintext modulus 2
// (GHS 2.2, appendix B.4-B.5); the homomorphic operations are in
// evaluator.go and keyswitch.go.
//
// Invariant: a ciphertext at level t is a vector (c_0, ..., c_k) of Polys in
// the evaluation representation modulo p_0..p_t with
// Σ_i c_i·s^i = μ + 2e (mod Q_t), μ the plaintext, e small.

// Sampler draws the randomness of key generation and encryption from a
// ring.PRNG stream (AES-256-CTR, a CSPRNG with a full security margin). Not
// safe for concurrent use: one per goroutine.
type Sampler struct {
	rng *ring.PRNG
}

// NewSampler returns a sampler seeded from crypto/rand.
func NewSampler() *Sampler {
	var seed [32]byte
	if _, err := crand.Read(seed[:]); err != nil {
		panic(fmt.Sprintf("bgv: crypto/rand failed: %v", err)) // the OS RNG never fails on supported systems
	}
	return NewSamplerFromSeed(seed)
}

// NewSamplerFromSeed returns a deterministic sampler (tests, reproducible runs).
func NewSamplerFromSeed(seed [32]byte) *Sampler { return &Sampler{rng: ring.NewPRNG(seed)} }

// ternary returns n coefficients uniform in {-1, 0, 1}.
func (s *Sampler) ternary(n int) []int64 {
	out := make([]int64, n)
	s.ternaryTo(out)
	return out
}

// ternaryTo fills out with coefficients uniform in {-1, 0, 1}.
func (s *Sampler) ternaryTo(out []int64) {
	for i := range out {
		// Rejection on 2 bits keeps the three values exactly equiprobable.
		for {
			v := s.rng.Uint64() & 3
			if v < 3 {
				out[i] = int64(v) - 1
				break
			}
		}
	}
}

// errorBinomial is the parameter k of the centred binomial error
// distribution: variance k/2 = 10.5, σ ≈ 3.24 (the HE standard's σ = 3.2).
const errorBinomial = 21

// gaussian returns n coefficients from the centred binomial distribution
// Σ_(i<k) (a_i - b_i), a sub-Gaussian stand-in for the discrete Gaussian.
func (s *Sampler) gaussian(n int) []int64 {
	out := make([]int64, n)
	s.gaussianTo(out)
	return out
}

// gaussianTo fills out from the distribution of gaussian.
func (s *Sampler) gaussianTo(out []int64) {
	mask := uint64(1)<<errorBinomial - 1
	for i := range out {
		x := s.rng.Uint64()
		out[i] = int64(bits.OnesCount64(x&mask)) - int64(bits.OnesCount64(x>>32&mask))
	}
}

// uniform sets every row of p to uniform residues: uniform in each row is
// uniform in R_Q, in either representation.
func (s *Sampler) uniform(r *Ring, p *Poly) {
	for i, row := range p.Rows {
		q := r.moduli[i].Q
		mask := uint64(1)<<uint(bits.Len64(q)) - 1
		for j := range row {
			// Rejection sampling: exact uniformity, < 2 draws on average.
			v := s.rng.Uint64() & mask
			for v >= q {
				v = s.rng.Uint64() & mask
			}
			row[j] = v
		}
	}
}

// SecretKey is the ternary secret s, in evaluation form over all primes of Q
// (S) and of Q·P (for key-switching keys).
type SecretKey struct {
	S      *Poly
	qp     *Poly
	coeffs []int64
}

// PublicKey is (b, a) with b = -a·s + 2e over Q at the top level.
type PublicKey struct {
	B, A *Poly
}

// Ciphertext is (c_0, ..., c_k) in evaluation form at a common level;
// k = 1 after encryption and every Evaluator kernel, 2 after TensorNew.
// A ciphertext made by Params.NewCiphertext gets its rows when a kernel
// first writes it, for that result's level, and grows (once per increase)
// when a later result needs a higher level; kernels then move it down and
// back up to that level without allocating. Levels only fall during a
// circuit, so most values never hold the rows of the primes above their
// level (at m = 65537 a top-level ciphertext is 23 MB, one at level 4 is
// 5.2 MB).
//
// It carries an estimate of its noise (GHS 3.3, see noise.go);
// Params.NoiseBound turns it into a bound on the largest coefficient that
// Decryptor.NoiseBits measures.
type Ciphertext struct {
	Value []*Poly
	Noise NoiseEstimate
	// n is the row length of rows allocated on demand by setLevel; 0 for
	// ciphertexts built from existing Polys, which cannot grow.
	n int
}

// Level returns the ciphertext's level.
func (c *Ciphertext) Level() int { return c.Value[0].Level() }

// Degree returns k (the key is (1, s, ..., s^k)).
func (c *Ciphertext) Degree() int { return len(c.Value) - 1 }

// KeyGenerator generates keys for one parameter set.
type KeyGenerator struct {
	params  *Params
	sampler *Sampler
}

// NewKeyGenerator returns a key generator drawing from sampler.
func NewKeyGenerator(pr *Params, sampler *Sampler) *KeyGenerator {
	return &KeyGenerator{params: pr, sampler: sampler}
}

// GenSecretKey draws s with uniform ternary coefficients.
func (kg *KeyGenerator) GenSecretKey() *SecretKey {
	r := kg.params.ringQP
	c := kg.sampler.ternary(r.n)
	qp := r.NewPoly(r.MaxLevel())
	r.SetSmall(c, qp, r.NewScratch())
	s := &Poly{Rows: qp.Rows[:kg.params.ringQ.MaxLevel()+1]}
	return &SecretKey{S: s, qp: qp, coeffs: c}
}

// GenPublicKey returns (b, a) = (-a·s + 2e, a), a uniform, e from the error
// distribution.
func (kg *KeyGenerator) GenPublicKey(sk *SecretKey) *PublicKey {
	r := kg.params.ringQ
	L := r.MaxLevel()
	a, b := r.NewPoly(L), r.NewPoly(L)
	kg.sampler.uniform(r, a)
	twoE(r, kg.sampler.gaussian(r.n), b, r.NewScratch())
	as := r.NewPoly(L)
	r.Mul(a, sk.S, as)
	r.Sub(b, as, b)
	return &PublicKey{B: b, A: a}
}

// twoE sets out to 2·e (evaluation form) for the small coefficients e.
func twoE(r *Ring, e []int64, out *Poly, scratch []uint64) {
	for i := range e {
		e[i] *= 2
	}
	r.SetSmall(e, out, scratch)
}

// plainPoly lifts a plaintext in A_2 to R_Q (coefficients 0/1) at level.
func plainPoly(r *Ring, pt BinaryPoly, level int, scratch []uint64) *Poly {
	p := r.NewPoly(level)
	setPlain(r, pt, p, make([]int64, r.n), scratch)
	return p
}

// setPlain sets out (evaluation form, its own level) to the lift of pt;
// coeffs (φ(m) entries) is overwritten.
func setPlain(r *Ring, pt BinaryPoly, out *Poly, coeffs []int64, scratch []uint64) {
	for i := range coeffs[:r.n] {
		coeffs[i] = int64(pt.Bit(i))
	}
	r.SetSmall(coeffs, out, scratch)
}

// Encryptor encrypts plaintexts of A_2 at the top level, with a public key
// or (smaller noise) a secret key. It owns its working buffers (up to three
// polynomials at the highest level it encrypted at), so EncryptTo allocates
// nothing after its first call; like its Sampler, an Encryptor serves one
// goroutine at a time.
type Encryptor struct {
	params  *Params
	pk      *PublicKey
	sk      *SecretKey
	sampler *Sampler

	coeffs   []int64  // φ(m) small coefficients (plaintext, errors, u)
	tr       []uint64 // transform scratch
	mu, e, u *Poly    // buffers up to the highest level encrypted so far
	muL, eL  Poly     // their restrictions to the level being encrypted
	uL       Poly
}

// NewPublicEncryptor encrypts under pk.
func NewPublicEncryptor(pr *Params, pk *PublicKey, sampler *Sampler) *Encryptor {
	return &Encryptor{params: pr, pk: pk, sampler: sampler}
}

// NewSymmetricEncryptor encrypts under sk.
func NewSymmetricEncryptor(pr *Params, sk *SecretKey, sampler *Sampler) *Encryptor {
	return &Encryptor{params: pr, sk: sk, sampler: sampler}
}

// buffers allocates the working buffers on first use (an Encryptor that is
// built but never used costs nothing), with rows up to level L; a later
// call at a higher level reallocates them once.
func (en *Encryptor) buffers(L int) {
	r := en.params.ringQ
	if en.tr == nil {
		en.coeffs = make([]int64, r.n)
		en.tr = r.NewScratch()
	}
	if en.mu != nil && len(en.mu.Rows) > L {
		return
	}
	en.mu, en.e = r.NewPoly(L), r.NewPoly(L)
	if en.sk == nil {
		en.u = r.NewPoly(L)
	}
}

// Encrypt returns a fresh ciphertext of pt at the top level.
//
// Symmetric: (c_0, c_1) = (-a·s + 2e + μ, a).
// Public key: (c_0, c_1) = (b·u + 2e_0 + μ, a·u + 2e_1), u ternary.
func (en *Encryptor) Encrypt(pt BinaryPoly) *Ciphertext {
	ct := en.params.NewCiphertext()
	en.encryptTo(pt, en.params.MaxLevel(), ct)
	return ct
}

// EncryptTo sets ct (made by Params.NewCiphertext) to a fresh encryption of
// pt at the top level. Allocates nothing after the Encryptor's first call.
func (en *Encryptor) EncryptTo(pt BinaryPoly, ct *Ciphertext) {
	en.encryptTo(pt, en.params.MaxLevel(), ct)
}

// encryptTo encrypts at level L into ct, computing only the rows of
// p_0..p_L (the top-level encryption's restriction, in distribution). The
// random draws come in the same order as always, so seeded runs reproduce
// earlier ciphertexts.
func (en *Encryptor) encryptTo(pt BinaryPoly, L int, ct *Ciphertext) {
	en.buffers(L)
	r := en.params.ringQ
	setLevel(ct, L)
	c0, c1 := ct.Value[0], ct.Value[1]
	en.muL.Rows, en.eL.Rows = en.mu.Rows[:L+1], en.e.Rows[:L+1]
	mu, e0 := &en.muL, &en.eL
	setPlain(r, pt, mu, en.coeffs, en.tr)
	en.sampler.gaussianTo(en.coeffs)
	twoE(r, en.coeffs, e0, en.tr)
	if en.sk != nil {
		en.sampler.uniform(r, c1)
		r.Mul(c1, en.sk.S, c0)
		r.Sub(e0, c0, c0)
	} else {
		en.uL.Rows = en.u.Rows[:L+1]
		u := &en.uL
		en.sampler.ternaryTo(en.coeffs)
		r.SetSmall(en.coeffs, u, en.tr)
		r.Mul(en.pk.B, u, c0)
		r.Add(c0, e0, c0)
		en.sampler.gaussianTo(en.coeffs)
		twoE(r, en.coeffs, c1, en.tr)
		r.MulAdd(en.pk.A, u, c1)
	}
	r.Add(c0, mu, c0)
	// This draw was the ciphertext's random ancestry bit; it stays so that
	// seeded samplers reproduce earlier keys and ciphertexts. Every fresh
	// encryption now has the same estimate, FreshState's (see freshNoise).
	en.sampler.rng.Uint64()
	ct.Noise = en.params.freshNoise(en.sk == nil)
}

// EncryptAtLevel returns a fresh ciphertext of pt at level t: distributed as
// the top-level encryption restricted to p_0..p_t, which is valid modulo Q_t
// with the same (fresh) noise; no modulus switch, so none of its rounding
// noise, and only t+1 rows are computed. Inputs of a circuit whose depth a
// lower level supports (Params.LevelForCircuit) are smaller and every product on
// them cheaper.
func (en *Encryptor) EncryptAtLevel(pt BinaryPoly, t int) (*Ciphertext, error) {
	if t < 0 || t > en.params.MaxLevel() {
		return nil, fmt.Errorf("bgv encrypt: level %d outside [0, %d]", t, en.params.MaxLevel())
	}
	ct := en.params.NewCiphertext()
	en.encryptTo(pt, t, ct)
	return ct, nil
}

// EncryptAtLevelTo is EncryptAtLevel into ct (made by Params.NewCiphertext).
// Allocates nothing after the Encryptor's first call.
func (en *Encryptor) EncryptAtLevelTo(pt BinaryPoly, t int, ct *Ciphertext) error {
	if t < 0 || t > en.params.MaxLevel() {
		return fmt.Errorf("bgv encrypt: level %d outside [0, %d]", t, en.params.MaxLevel())
	}
	en.encryptTo(pt, t, ct)
	return nil
}

// Decryptor decrypts with the secret key.
type Decryptor struct {
	params *Params
	sk     *SecretKey
}

// NewDecryptor returns a decryptor for sk.
func NewDecryptor(pr *Params, sk *SecretKey) *Decryptor { return &Decryptor{params: pr, sk: sk} }

// phase returns the centred coefficients of Σ c_i·s^i mod Q_t.
func (de *Decryptor) phase(ct *Ciphertext) []*big.Int {
	r := de.params.ringQ
	t := ct.Level()
	acc := r.NewPoly(t)
	acc.CopyFrom(ct.Value[len(ct.Value)-1])
	// Horner: ((c_k·s + c_(k-1))·s + ...) + c_0.
	for i := len(ct.Value) - 2; i >= 0; i-- {
		r.Mul(acc, de.sk.S, acc)
		r.Add(acc, ct.Value[i], acc)
	}
	return r.BigCoeffs(acc)
}

// Decrypt returns [[Σ c_i·s^i]_Q_t]_2 (GHS equation (1)), allocating the
// result and scratch; see DecryptTo.
func (de *Decryptor) Decrypt(ct *Ciphertext) BinaryPoly {
	pt := NewBinaryPoly(de.params.n)
	de.DecryptTo(ct, pt, de.params.NewScratch())
	return pt
}

// DecryptTo sets out to the plaintext of ct without math/big: the phase
// x = Σ c_i·s^i is brought to coefficients modulo every prime of Q_t and
// divided by p_1·…·p_t with the mod-2 correction (scaleDown), which keeps
// its parity and leaves (x - δ)/(p_1…p_t) with |δ/(p_1…p_t)| < 2t: then
// the plaintext is the parity of the centred residue modulo p_0. Correct
// while the noise is below Q_t/2 - 2t·p_1…p_t. Allocates nothing.
func (de *Decryptor) DecryptTo(ct *Ciphertext, out BinaryPoly, sc *Scratch) {
	pr := de.params
	r := pr.ringQ
	t := ct.Level()
	acc := sc.d0
	acc.Rows = acc.Rows[:t+1]
	acc.CopyFrom(ct.Value[len(ct.Value)-1])
	for i := len(ct.Value) - 2; i >= 0; i-- {
		r.Mul(acc, de.sk.S, acc)
		r.Add(acc, ct.Value[i], acc)
	}
	// Coefficients in Rader order (ring.RaderNTT): the division below works
	// coefficient by coefficient, and the bits are scattered at the end.
	for i := 0; i <= t; i++ {
		r.transforms[i].InverseRaderOrder(acc.Rows[i], sc.coeff[i], sc.tr)
	}
	x := sc.coeff[0]
	if t > 0 {
		sd := pr.rns[t].toZero
		delta := sc.dst[:1]
		delta[0] = sc.ext[0]
		sd.conv.convert(sc.coeff[1:t+1], delta, sc.y, sc.v)
		sd.finish(0, sc.coeff[0], sc.ext[0], sc.ext[1])
		x = sc.ext[1]
	}
	q := r.moduli[0].Q
	clear(out)
	// Slot s holds the coefficient of X^(g^s), slot n/2 the constant one:
	// the plan's CoeffIndex is exactly that map.
	for s, v := range x[:pr.n] {
		bit := v & 1
		if v > q/2 { // centred value v - q, q odd
			bit ^= 1
		}
		i := pr.plan.CoeffIndex(s)
		out[i>>6] |= bit << (i & 63)
	}
}

// NoiseBits returns log2 of the largest coefficient of the noise μ + 2e in
// coefficient form (the measurement the noise estimates are checked against),
// and log2(Q_t) for comparison.
func (de *Decryptor) NoiseBits(ct *Ciphertext) (noise, logQ float64) {
	maxAbs := new(big.Int)
	for _, c := range de.phase(ct) {
		if a := new(big.Int).Abs(c); a.Cmp(maxAbs) > 0 {
			maxAbs = a
		}
	}
	return bigLog2(maxAbs), bigLog2(de.params.ringQ.Modulus(ct.Level()))
}

func bigLog2(x *big.Int) float64 {
	if x.Sign() == 0 {
		return 0
	}
	f, _ := new(big.Float).SetInt(x).Float64()
	if !math.IsInf(f, 0) {
		return math.Log2(f)
	}
	sh := x.BitLen() - 64
	f, _ = new(big.Float).SetInt(new(big.Int).Rsh(x, uint(sh))).Float64()
	return math.Log2(f) + float64(sh)
}
