package bgv

import (
	"fmt"
	"slices"
	"sync"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Key switching: GHS 3.1 (keys modulo P·Q with special primes P, "modulus
// raising"), in the hybrid form with digits that GHS suggest at the end of
// 3.1 (the RNS gadget of Han–Ki / Kim et al., as in HElib and Lattigo).
//
// The ciphertext primes are cut into digits D_j (consecutive primes, product
// Q_j). With w_j = (Q/Q_j)·[(Q/Q_j)^-1]_(Q_j) (w_j ≡ 1 mod the primes of
// D_j, 0 mod the others) the key from s' to s has one component per digit,
//
//	(B_j, A_j) = (-A_j·s + 2e_j + P·w_j·s', A_j)  mod P·Q,
//
// so that B_j ≡ 2e_j - A_j·s on the special primes and on the primes outside
// D_j, and P·s' is added only on the rows of D_j (no math/big at key
// generation). To switch c (valid under s', level t):
//
//  1. c_j = [c]_(Q_j ∩ Q_t) needs no computation: it is rows D_j of c. Extend
//     it to the other primes of Q_t·P (baseConverter, centred, exact), in
//     coefficient form, and transform those rows back (modulus raising).
//  2. (d_0, d_1) = Σ_j c_j·(B_j, A_j) mod Q_t·P: d_0 + d_1·s = P·c·s' +
//     2·Σ_j c_j·e_j, because Σ_j c_j·w_j ≡ c (mod Q_t) for the centred lifts.
//  3. Divide by P with the mod-2 correction (scaleDown): (d_0, d_1)/P is
//     valid under s for c·s', with added noise 2·Σ_j c_j·e_j/P + ⟨δ, s⟩/P.
//
// Digit size. The added noise has variance about
// Σ_j φ(m)·(Q_j²/12)·4σ²/P²; with every Q_j <= P (the automatic partition)
// it is below φ(m)·σ² ≈ 2^20 at m = 65537, far below the product noise it is
// added to, so larger digits would only need larger P.
//
// Cost and the m = 65537 decision. A switch at level t with k special primes
// and d digits of α primes costs (t+1) inverse transforms, d·(t+1+k-α)
// forward transforms for the raised digits, and 2k inverse plus 2(t+1)
// forward transforms for the division by P, plus O(d·(t+1+k)·φ(m))
// pointwise work. At m = 65537 a transform costs the same per prime
// whatever its size (up to 61 bits): ~2.5 ms in pure Go when the chain was
// chosen, ~0.3-0.5 ms on the AVX-512 kernels (ring's CyclicNTT64 and
// rns_amd64.s here), where the base conversions and inner products are now
// a similar share. The number
// of primes decides, and the digit count follows from how much of the
// 1772-bit budget is left for P. (Primes below 2^50 would admit IFMA
// butterflies, but need more primes for the same depth; the 64-bit
// kernels on VPMULUDQ/VPMULLQ keep this chain and already put the key
// switch well below Lattigo's on the same primes, docs/bgv-peer.md.)
// Three chains were compared with the noise estimate's DepthAvailable:
//
//   - phase-1 chain: 41 primes of 20-42 bits (direct primes start at 37
//     bits at m = 65537), P = 3×59 bits, 10 digits: ~529 transforms per
//     switch at the top, keys of 10·2·44 rows (461 MB); measured Mul 2.4 s.
//   - two-auxiliary mode (ring.RaderNTT): 41 primes of 28 bits, P = 10×58,
//     3 digits, depth 40, but every level-prime transform doubles: ~455
//     transform-equivalents.
//   - few large primes (M65537Literal): dynamic noise management lets a
//     59-bit prime absorb about two levels, so 22 primes give depth 41 and
//     leave P = 8×59 bits for 3 digits: ~148 transforms per switch, keys of
//     3·2·30 rows (94 MB). This is the one chosen.
//
// One digit (GHS's original p ≈ q·sqrt(m)) would need P ≥ Q, i.e. half the
// budget for P and half the depth.

// SwitchingKey switches a ciphertext component from a key s' to the secret
// key s: one (B_j, A_j) per digit, over all primes of Q·P (RingQP order),
// in evaluation form. Immutable.
type SwitchingKey struct {
	B, A []*Poly
}

// EvaluationKeySet holds the keys an Evaluator needs: the relinearization
// key (s² → s) and automorphism keys κ_t(s) → s, addressed by the Galois
// element t they serve. Not safe for concurrent modification; read-only use
// is safe.
type EvaluationKeySet struct {
	Relin *SwitchingKey
	auto  map[uint64]*SwitchingKey
}

// NewEvaluationKeySet returns a set with the given relinearization key and no
// automorphism keys.
func NewEvaluationKeySet(relin *SwitchingKey) *EvaluationKeySet {
	return &EvaluationKeySet{Relin: relin, auto: map[uint64]*SwitchingKey{}}
}

// AutoKey returns the key for κ_t (t reduced mod m), if present.
func (ek *EvaluationKeySet) AutoKey(t uint64) (*SwitchingKey, bool) {
	k, ok := ek.auto[t]
	return k, ok
}

// SetAutoKey stores the key for κ_t.
func (ek *EvaluationKeySet) SetAutoKey(t uint64, key *SwitchingKey) { ek.auto[t] = key }

// GaloisElements lists the elements t with an automorphism key, sorted.
func (ek *EvaluationKeySet) GaloisElements() []uint64 {
	out := make([]uint64, 0, len(ek.auto))
	for t := range ek.auto {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// GenSwitchingKey returns the key from s' to sk, for s' given in evaluation
// form over (at least) the ciphertext primes.
func (kg *KeyGenerator) GenSwitchingKey(sk *SecretKey, sPrime *Poly) *SwitchingKey {
	pr := kg.params
	r := pr.ringQP
	top := r.MaxLevel()
	scratch := r.NewScratch()
	key := &SwitchingKey{}
	for _, dg := range pr.digits {
		a, b := r.NewPoly(top), r.NewPoly(top)
		kg.sampler.uniform(r, a)
		twoE(r, kg.sampler.gaussian(r.n), b, scratch)
		for i := range b.Rows {
			md := &r.moduli[i]
			x, y, z := a.Rows[i], sk.qp.Rows[i], b.Rows[i]
			for k := range z {
				z[k] = ring.SubMod64(z[k], md.MulMod(x[k], y[k]), md.Q)
			}
		}
		for _, i := range dg {
			md := &r.moduli[i]
			pm := uint64(1)
			for _, p := range pr.p {
				pm = md.MulMod(pm, p%md.Q)
			}
			src, z := sPrime.Rows[i], b.Rows[i]
			for k := range z {
				z[k] = ring.AddMod64(z[k], md.MulMod(pm, src[k]), md.Q)
			}
		}
		key.B, key.A = append(key.B, b), append(key.A, a)
	}
	return key
}

// GenRelinKey returns the relinearization key s² → s.
func (kg *KeyGenerator) GenRelinKey(sk *SecretKey) *SwitchingKey {
	r := kg.params.ringQ
	s2 := r.NewPoly(r.MaxLevel())
	r.Mul(sk.S, sk.S, s2)
	return kg.GenSwitchingKey(sk, s2)
}

// GenAutoKey returns the key κ_t(s) → s that Automorphism(·, t) needs.
func (kg *KeyGenerator) GenAutoKey(sk *SecretKey, t uint64) (*SwitchingKey, error) {
	r := kg.params.ringQ
	st := r.NewPoly(r.MaxLevel())
	if err := r.Automorphism(sk.S, t, st); err != nil {
		return nil, fmt.Errorf("bgv automorphism key: %w", err)
	}
	return kg.GenSwitchingKey(sk, st), nil
}

// GenEvaluationKeys returns the relinearization key and automorphism keys
// for the given slot rotations (left by k, see Params.RotationElement) and,
// if frobenius, for κ_(2^j), j = 1..d-1 (GF(2^d) Frobenius maps per slot).
func (kg *KeyGenerator) GenEvaluationKeys(sk *SecretKey, rotations []int, frobenius bool) (*EvaluationKeySet, error) {
	pr := kg.params
	ek := NewEvaluationKeySet(kg.GenRelinKey(sk))
	var elems []uint64
	for _, k := range rotations {
		elems = append(elems, pr.RotationElement(k))
	}
	if frobenius {
		for j := 1; j < pr.d; j++ {
			elems = append(elems, ring.PowMod(2, uint64(j), uint64(pr.m)))
		}
	}
	for _, t := range elems {
		if _, ok := ek.auto[t]; ok || t == 1 {
			continue
		}
		key, err := kg.GenAutoKey(sk, t)
		if err != nil {
			return nil, err
		}
		ek.auto[t] = key
	}
	return ek, nil
}

// Scratch is the per-goroutine working memory of the Evaluator's kernels,
// sized once from the parameters (about 110 MiB at m = 65537).
type Scratch struct {
	tr      []uint64   // transform scratch
	coeff   [][]uint64 // L+1 rows: key-switching input in coefficient form
	ext     [][]uint64 // L+1+k rows: raised digit / δ rows
	acc0    [][]uint64 // L+1+k rows: Σ_j c_j·B_j
	acc1    [][]uint64 // L+1+k rows: Σ_j c_j·A_j
	y       [][]uint64 // base-extension scratch
	v       []float64
	src     [][]uint64 // row headers (no allocation)
	dst     [][]uint64
	digit   [][]uint64
	d0, d1  *Poly // tensor product
	d2      *Poly
	opA     *Ciphertext // operands switched down before a multiplication
	opB     *Ciphertext
	rotated *Ciphertext
	// Key-switching workers beyond the calling goroutine (parallel.go):
	// one transform buffer each, the join point and the running job.
	trW [][]uint64
	hdr []convHeaders // per worker, including the caller (parallel scratch only)
	wg  sync.WaitGroup
	job jobState
}

// NewScratch allocates scratch for one goroutine.
func (ev *Evaluator) NewScratch() *Scratch { return ev.params.NewScratch() }

// NewScratch allocates scratch for one goroutine.
func (pr *Params) NewScratch() *Scratch {
	L, k, n := len(pr.q), len(pr.p), pr.n
	rows := func(c int) [][]uint64 {
		out := make([][]uint64, c)
		back := make([]uint64, c*n)
		for i := range out {
			out[i] = back[i*n : (i+1)*n : (i+1)*n]
		}
		return out
	}
	r := pr.ringQ
	return &Scratch{
		tr: pr.ringQ.NewScratch(), coeff: rows(L), ext: rows(L + k),
		acc0: rows(L + k), acc1: rows(L + k), y: rows(L + k), v: make([]float64, n),
		src: make([][]uint64, L+k), dst: make([][]uint64, L+k), digit: make([][]uint64, L+k),
		d0: r.NewPoly(L - 1), d1: r.NewPoly(L - 1), d2: r.NewPoly(L - 1),
		opA: pr.NewCiphertext(), opB: pr.NewCiphertext(), rotated: pr.NewCiphertext(),
	}
}

// keySwitch sets (out0, out1) at c's level to the key switch of c (valid
// under the key's s') to s: out0 + out1·s = c·s' + small even noise. c,
// out0 and out1 are in evaluation form; out0 and out1 must not alias c.
// The per-prime work runs on sc's workers (see forRows). Allocates nothing
// with one worker.
func (pr *Params) keySwitch(c *Poly, key *SwitchingKey, out0, out1 *Poly, sc *Scratch) {
	t := c.Level()
	lv := &pr.rns[t]
	nExt := len(lv.qp)
	st := &sc.job
	st.c, st.key, st.t = c, key, t
	sc.forRows(pr, jobInverseQ, t+1)
	for j := range lv.digits {
		dg := &lv.digits[j]
		src, dst, digit := sc.src[:len(dg.src)], sc.dst[:len(dg.dst)], sc.digit[:nExt]
		for a, row := range dg.src {
			src[a] = sc.coeff[row]
			digit[row] = c.Rows[row] // c mod the digit's primes, already in evaluation form
		}
		for a, row := range dg.dst {
			dst[a] = sc.ext[row]
			digit[row] = sc.ext[row]
		}
		sc.convertRows(pr, dg.conv, src, dst)
		st.dg, st.first = dg, j == 0
		sc.forRows(pr, jobDigitRow, nExt)
	}
	pr.divideByP(t, sc.acc0[:nExt], out0, sc)
	pr.divideByP(t, sc.acc1[:nExt], out1, sc)
}

// divideByP sets out (level t) to the mod-2-corrected quotient of x (rows of
// Q_t·P, evaluation form) by P. Allocates nothing with one worker.
func (pr *Params) divideByP(t int, x [][]uint64, out *Poly, sc *Scratch) {
	lv := &pr.rns[t]
	k := len(pr.p)
	st := &sc.job
	st.t, st.x, st.out, st.sd = t, x, out, lv.modDown
	// The coefficient rows are free again here: special row j goes to coeff[j].
	sc.forRows(pr, jobInverseP, k)
	delta := sc.dst[:t+1]
	for i := range delta {
		delta[i] = sc.ext[i]
	}
	sc.convertRows(pr, lv.modDown.conv, sc.coeff[:k], delta)
	sc.forRows(pr, jobFinish, t+1)
}

// dropLevel switches p in place from level t to t-1: p ← (p - δ)/p_t with
// the mod-2 correction (GHS 3.2, appendix E): one inverse transform (row t)
// and t forward transforms (coefficients in Rader order in between).
// Allocates nothing.
func (pr *Params) dropLevel(p *Poly, sc *Scratch) {
	t := p.Level()
	sd := pr.rns[t].drop
	r := pr.ringQ
	r.transforms[t].InverseRaderOrder(p.Rows[t], sc.coeff[0], sc.tr)
	src := sc.src[:1]
	src[0] = sc.coeff[0]
	delta := sc.dst[:t]
	for i := range delta {
		delta[i] = sc.ext[i]
	}
	sd.conv.convert(src, delta, sc.y, sc.v)
	for i := 0; i < t; i++ {
		r.transforms[i].ForwardRaderOrder(delta[i], delta[i], sc.tr)
		sd.finish(i, p.Rows[i], delta[i], p.Rows[i])
	}
	p.Rows = p.Rows[:t]
}
