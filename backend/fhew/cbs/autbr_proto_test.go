package cbs

// Prototype (test-only) of the automorphism-based blind rotation with
// signed keys, Algorithm 2 of "LMKCDEY Revisited: Speeding Up Blind
// Rotation with Signed Evaluation Keys"
// (/work/shared/papers/lmkcdey-signed-evaluation-keys.txt), on the CBS ring
// RNS2 (N = 2048 at STD128_CBS), to decide whether it should replace the
// ternary GINX blind rotation of Evaluator.blindRotate. It is measured
// against that blind rotation in autbr_bench_test.go; docs/fhew-cbs-autbr.md
// has the numbers and the recommendation.
//
// Keys: brk[i] = (RGSW(X^{s_i}), RGSW(X^{-s_i})) with the BR gadget, and
// automorphism keys ak_u = RLWE'_z(g_j·ψ_{5^u}(z)), u = 1..w, with a gadget
// of their own (only the A polynomial of the accumulator is decomposed).
// The LWE coefficients must be units (Z_{2N}^* = {±5^l}): they are
// rounded from Q_ks to the nearest odd residue mod 2N (error in [-1, 1)
// instead of [-1/2, 1/2): the price in phase noise is in the doc). With
// step = 2 the rotation runs modulo M = N instead (Y = X^2, coefficients
// ≡ 2 mod 4 in units of 1/2N, keys RGSW(X^{±2s_i})): half the levels, so
// fewer automorphisms, for a larger rounding error ([-2, 2)).

import (
	"fmt"
	"math"
	mrand "math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// autGen is the generator g = 5 of the automorphism group's cyclic part.
const autGen = 5

// autVariant is one set of automorphism keys (one gadget, windows 1..w).
type autVariant struct {
	g    Gadget
	keys []ksKey // keys[u-1]: RLWE'_z(g_j·ψ_{5^u}(z)) (NTT domain)
}

// autBR holds the prototype's keys and tables for one secret key.
type autBR struct {
	p     Params
	f     ring.Poly2 // the CBS test polynomial (coefficient domain)
	step  int        // 2N/M: 1 (M = 2N) or 2 (M = N)
	L     int        // levels M/4 = N/(2·step)
	t0    uint64     // the initial automorphism, 5^{-(L-1)} mod 2N
	brk   [][2]*RGSW // brk[i] = RGSW(X^{step·s_i}), RGSW(X^{-step·s_i}) (BR gadget)
	vars  []autVariant
	wMax  int
	index [][]uint32 // index[u-1]: NTT permutation of ψ_{5^u}
	dlog  []int32    // a = step·u mod 2N, u = ±5^l mod M: l (+) or l + L (-); otherwise -1
}

// encryptRGSWPoly writes RGSW(m) under z with gadget g (m and out in the
// NTT domain): rows j < ℓ encrypt m·g_j, rows ℓ + j encrypt m·g_j·z, the
// layout of RGSW (and of the GINX keys), fresh uniform A.
func encryptRGSWPoly(sk *SecretKey, smp *sampler, m ring.Poly2, g Gadget, e []int64, out *RGSW) {
	r := sk.params.ring
	l := g.Digits
	msg := r.NewPoly()
	for j := 0; j < l; j++ {
		r.MulScalar(m, r.GadgetConst(g.LogB, j, g.Drop), msg)
		encryptRLWE(sk, smp, msg, e, out.B[j], out.A[j])
		r.MulCoeffs(msg, sk.zNTT, msg)
		encryptRLWE(sk, smp, msg, e, out.B[l+j], out.A[l+j])
	}
}

// newAutBR generates the prototype's keys for sk (secrets from crypto/rand
// through the package's sampler) for rotation modulus M = 2N/step: the
// signed blind-rotation keys with the set's BR gadget, and for every gadget
// of gs the automorphism keys of ψ_{5^u}, u = 1..wMax.
func newAutBR(sk *SecretKey, f ring.Poly2, step, wMax int, gs ...Gadget) (*autBR, error) {
	p := sk.params
	r := p.ring
	N := p.ringN
	if step != 1 && step != 2 {
		return nil, fmt.Errorf("autbr: step %d: the prototype has M = 2N (1) and M = N (2)", step)
	}
	L := N / (2 * step)
	if wMax < 1 || wMax > L {
		return nil, fmt.Errorf("autbr: window %d outside [1, M/4 = %d]", wMax, L)
	}
	for _, g := range gs {
		if err := r.CheckDecompose(g.LogB, g.Digits, g.Drop); err != nil {
			return nil, fmt.Errorf("autbr: automorphism gadget %v: %w", g, err)
		}
	}
	smp, err := newCryptoSampler(p.lit.Sigma)
	if err != nil {
		return nil, err
	}
	ab := &autBR{p: p, f: f, step: step, L: L, wMax: wMax}
	e := make([]int64, N)
	mono := make([]int64, N)
	m := r.NewPoly()
	// setMono sets m = NTT(X^k) for |k| < N.
	setMono := func(k int64) {
		clear(mono)
		if k >= 0 {
			mono[k] = 1
		} else {
			mono[int64(N)+k] = -1 // X^{-k} = -X^{N-k}
		}
		r.SetCentered(mono, m)
		r.Forward(m, m)
	}
	ab.brk = make([][2]*RGSW, p.lit.LWEDim)
	for i, s := range sk.s {
		for k, sign := range [2]int64{1, -1} {
			ab.brk[i][k] = newRGSW(r, p.lit.BR.Digits)
			setMono(sign * s * int64(step))
			encryptRGSWPoly(sk, smp, m, p.lit.BR, e, ab.brk[i][k])
		}
	}
	zc := r.NewPoly()
	r.SetCentered(sk.z, zc)
	w := r.NewPoly()
	msg := r.NewPoly()
	t := uint64(1)
	M := uint64(p.ringM)
	ab.index = make([][]uint32, wMax)
	gal := make([]uint64, wMax)
	for u := 1; u <= wMax; u++ {
		t = t * autGen % M
		gal[u-1] = t
		ab.index[u-1] = ring.AutomorphismNTTIndex(N, t)
	}
	for _, g := range gs {
		v := autVariant{g: g, keys: make([]ksKey, wMax)}
		for u := range v.keys {
			r.AutomorphismCoeff(zc, gal[u], w)
			r.Forward(w, w)
			k := ksKey{B: make([]ring.Poly2, g.Digits), A: make([]ring.Poly2, g.Digits)}
			for j := range k.B {
				k.B[j], k.A[j] = r.NewPoly(), r.NewPoly()
				r.MulScalar(w, r.GadgetConst(g.LogB, j, g.Drop), msg)
				encryptRLWE(sk, smp, msg, e, k.B[j], k.A[j])
			}
			v.keys[u] = k
		}
		ab.vars = append(ab.vars, v)
	}
	ab.dlog = make([]int32, M)
	for i := range ab.dlog {
		ab.dlog[i] = -1
	}
	x := uint64(1)
	Mr := M / uint64(step) // the rotation modulus M
	for l := 0; l < L; l++ {
		if ab.dlog[uint64(step)*x] != -1 { // 5 has order M/4 mod M: never taken
			return nil, fmt.Errorf("autbr: internal error: 5^%d repeats", l)
		}
		ab.dlog[uint64(step)*x] = int32(l)
		ab.dlog[uint64(step)*(Mr-x)] = int32(l + L)
		x = x * autGen % Mr
	}
	// The loop applies ψ_5 L-1 times; 5 has order N/2 mod 2N.
	ab.t0 = ring.PowMod(autGen, uint64(N/2-(L-1)), M)
	return ab, nil
}

// sizeBytes returns the memory of the signed blind-rotation keys and of
// variant v's automorphism keys for window w (coefficients as uint32).
func (ab *autBR) sizeBytes(v, w int) (brk, auto int) {
	poly := 2 * 4 * ab.p.ringN
	brk = len(ab.brk) * 2 * 4 * ab.p.lit.BR.Digits * poly
	auto = w * 2 * ab.vars[v].g.Digits * poly
	return brk, auto
}

// autScratch is the prototype's working memory.
type autScratch struct {
	alpha      []int32 // odd a_i mod 2N (the LWE sample is (a, b), phase b + <a, s>), alpha[n] = b
	neg        []int32 // -a_i mod 2N: the exponents Algorithm 2 rotates by
	head, next []int32
	accB, accA ring.Poly2
	cB, cA     ring.Poly2
	tB, tA     ring.Poly2
	dig        []ring.Poly2
	// Operation counts of the last blind rotation.
	prods, autos int
}

func newAutScratch(p Params) *autScratch {
	r := p.ring
	sc := &autScratch{
		alpha: make([]int32, p.lit.LWEDim+1),
		neg:   make([]int32, p.lit.LWEDim),
		head:  make([]int32, p.ringN),
		next:  make([]int32, p.lit.LWEDim),
	}
	for _, q := range []*ring.Poly2{&sc.accB, &sc.accA, &sc.cB, &sc.cA, &sc.tB, &sc.tA} {
		*q = r.NewPoly()
	}
	sc.dig = r.NewPolys(2 * max(p.lit.BR.Digits, 8))
	return sc
}

// oddAlpha rounds the key-switched sample of sc (left in sc.ksAcc by
// Evaluator.toSmallLWE, mod Q_ks) for step 1 to the nearest odd residue mod
// 2N, for step 2 to the nearest residue ≡ 2 mod 4, into as.alpha (b: the
// nearest residue, as toSmallLWE). It first re-derives toSmallLWE's
// nearest rounding from ksAcc and compares it with sc.alpha, so a change of
// the key switch's lane layout is reported, not misread.
func oddAlpha(p Params, sc *Scratch, as *autScratch, step int) error {
	n := p.lit.LWEDim
	shift := uint(p.lit.LogQKS - (p.lit.LogN + 1))
	mask := uint64(p.qks - 1)
	M := uint64(p.ringM)
	for j := 0; j <= n; j++ {
		x := (sc.ksAcc[j/4] >> (16 * uint(j%4))) & mask
		near := int32(((x + (uint64(1)<<shift)/2) >> shift) % M)
		if near != sc.alpha[j] {
			return fmt.Errorf("autbr: ksAcc lane %d rounds to %d, toSmallLWE gave %d (lane layout changed?)", j, near, sc.alpha[j])
		}
		if j == n {
			as.alpha[j] = near
		} else {
			// x/2^shift in [2k, 2k+2) -> 2k + 1 (step 1), in [4k, 4k+4)
			// -> 4k + 2 (step 2).
			sh := shift + uint(step)
			as.alpha[j] = int32((x>>sh<<sh>>shift | uint64(step)) % M)
		}
	}
	return nil
}

// blindRotate runs Algorithm 2 with window w and automorphism-key variant
// v on the sample in sc.alpha (a_i = step·unit), leaving RLWE(X^{-φ}·f)
// (NTT domain) in sc.accB, sc.accA for φ = b + Σ a_i s_i, the GINX blind
// rotation's output. Algorithm 2 computes ψ(f')·X^{Σ α_i s_i} with α_i =
// -a_i and f' = X^{-b}·f: the accumulator starts as ψ_{t0}(f'), t0 the
// inverse of the L-1 automorphisms ψ_5 of the loop (step 1: t0 = 5).
func (ab *autBR) blindRotate(sc *autScratch, v, w int) {
	r := ab.p.ring
	n := ab.p.lit.LWEDim
	M := int32(ab.p.ringM)
	q4 := ab.L
	keys := ab.vars[v].keys
	sc.prods, sc.autos = 0, 0
	r.MulByMonomial(ab.f, -int(sc.alpha[n]), sc.cB)
	r.AutomorphismCoeff(sc.cB, ab.t0, sc.tB)
	r.Forward(sc.tB, sc.accB)
	for k := range sc.accA {
		clear(sc.accA[k])
	}
	// Buckets I_l^+ (key l) and I_l^- (key l + L) of the exponents
	// α_i = -a_i = ±step·5^l (the caller's a_i are of that form: a -1 entry
	// of dlog panics on the index).
	head, next := sc.head, sc.next
	for i := range head {
		head[i] = -1
	}
	for i, a := range sc.alpha[:n] {
		na := (M - a) % M
		sc.neg[i] = na
		k := ab.dlog[na]
		next[i] = head[k]
		head[k] = int32(i)
	}
	u := 0                              // line 2
	for ell := q4 - 1; ell > 0; ell-- { // line 3
		for j := head[ell]; j >= 0; j = next[j] { // lines 4-5
			ab.extProd(sc, ab.brk[j][0])
		}
		for j := head[ell+q4]; j >= 0; j = next[j] { // lines 6-7
			ab.extProd(sc, ab.brk[j][1])
		}
		u++                                                                // line 8
		if head[ell-1] >= 0 || head[ell-1+q4] >= 0 || u == w || ell == 1 { // line 9
			ab.automorphism(sc, ab.vars[v].g, ab.index[u-1], keys[u-1]) // line 10
			u = 0                                                       // line 11
		}
	}
	for j := head[0]; j >= 0; j = next[j] { // lines 12-13
		ab.extProd(sc, ab.brk[j][0])
	}
	for j := head[q4]; j >= 0; j = next[j] { // lines 14-15
		ab.extProd(sc, ab.brk[j][1])
	}
}

// extProd sets acc = acc ⊡ K: both polynomials decomposed with the BR
// gadget (2 inverse + 2ℓ forward NTTs), one DotRows of 2ℓ rows.
func (ab *autBR) extProd(sc *autScratch, K *RGSW) {
	r := ab.p.ring
	g := ab.p.lit.BR
	l := g.Digits
	dig := sc.dig[:2*l]
	r.Inverse(sc.accB, sc.cB)
	r.Inverse(sc.accA, sc.cA)
	r.Decompose(sc.cB, g.LogB, l, g.Drop, dig[:l])
	r.Decompose(sc.cA, g.LogB, l, g.Drop, dig[l:])
	for _, d := range dig {
		r.Forward(d, d)
	}
	r.DotRows(dig, K.B, K.A, sc.accB, sc.accA)
	sc.prods++
}

// automorphism sets acc = ψ_t(acc) key-switched back to z: (ψ_t(B), 0) +
// Σ_j d_j(ψ_t(A))·key_j (1 inverse + d forward NTTs, DotRows of d rows).
func (ab *autBR) automorphism(sc *autScratch, g Gadget, index []uint32, key ksKey) {
	r := ab.p.ring
	dig := sc.dig[:g.Digits]
	r.AutomorphismNTT(sc.accB, index, sc.tB)
	r.AutomorphismNTT(sc.accA, index, sc.tA)
	r.Inverse(sc.tA, sc.cA)
	r.Decompose(sc.cA, g.LogB, g.Digits, g.Drop, dig)
	for _, d := range dig {
		r.Forward(d, d)
	}
	r.DotRows(dig, key.B, key.A, sc.accB, sc.accA)
	r.Add(sc.accB, sc.tB, sc.accB)
	sc.autos++
}

// autCount returns the number of automorphisms Algorithm 2 applies for
// the odd sample alpha (mod 2N) with window w: the schedule alone, an
// independent count to check autScratch.autos against.
func (ab *autBR) autCount(alpha []int32, w int) int {
	L := ab.L
	M := int32(ab.p.ringM)
	used := make([]bool, L) // used[l]: I_l^+ ∪ I_l^- non-empty
	for _, a := range alpha[:ab.p.lit.LWEDim] {
		used[ab.dlog[(M-a)%M]%int32(L)] = true
	}
	cnt, u := 0, 0
	for ell := L - 1; ell > 0; ell-- {
		u++
		if used[ell-1] || u == w || ell == 1 {
			cnt++
			u = 0
		}
	}
	return cnt
}

// autModelVar is the per-coefficient noise variance of Algorithm 2's
// accumulator by the model of Params.Noise: per external product the key
// noise of 2ℓ digits (2N·σ²·ΣVar(d_j)) plus the dropped bits' rounding
// times the monomial message (1 + z); per automorphism the key switch of
// one polynomial (N·σ²·ΣVar(d_j)) plus its rounding times ψ(z).
func (ab *autBR) autModelVar(v, prods, autos int) float64 {
	p := ab.p
	N, Q := float64(p.ringN), float64(p.q)
	s2 := p.lit.Sigma * p.lit.Sigma
	ep := 2*N*s2*digitVar(p.lit.BR, Q) + roundVar(p.lit.BR)*(1+ternaryVar*N)
	g := ab.vars[v].g
	ak := N*s2*digitVar(g, Q) + roundVar(g)*ternaryVar*N
	return float64(prods)*ep + float64(autos)*ak
}

// accErrVar decrypts (B, A) and returns the variance of its coefficients'
// difference to X^{-φ}·f and the largest |difference|.
func accErrVar(k *testKeys, fc []int64, phi int64, B, A ring.Poly2) (v, worst float64) {
	Q := int64(k.p.q)
	want := negRotate(fc, -int(phi), Q)
	got := rlwePhase(k.sk, B, A)
	for i := range got {
		d := float64(centre(got[i]-want[i], Q))
		v += d * d
		worst = math.Max(worst, math.Abs(d))
	}
	return v / float64(len(got)), worst
}

// phaseOf returns b + Σ a_i s_i mod 2N for alpha = (a, b).
func phaseOf(k *testKeys, alpha []int32) int64 {
	n := k.p.lit.LWEDim
	M := int64(k.p.ringM)
	phi := int64(alpha[n])
	for i, s := range k.sk.s {
		phi += int64(alpha[i]) * s
	}
	return ((phi % M) + M) % M
}

// autGadget3 is the three-digit automorphism gadget measured beside the BR
// gadget: 3·13 + 16 = 55 = log Q + 1 bits, rounding 2^15 instead of 2^20.
var autGadget3 = Gadget{LogB: 13, Digits: 3, Drop: 16}

// TestAutBRToy checks the prototype on ToyCBS for both rotation moduli
// (M = 2N, M = N): for encryptions of both bits (rounded to units of the
// rotation), random samples and degenerate ones (every a_i equal: one
// bucket, the window's u = w flushes and the long automorphism chain),
// with both automorphism gadgets and several windows, the accumulator
// decrypts to X^{-φ}·f (same bound as TestKeySwitchAndBlindRotation),
// every a_i takes one key product, the automorphism count matches the
// schedule, and the loop does not allocate.
func TestAutBRToy(t *testing.T) {
	k := keysFor(t, ToyCBS)
	p := k.p
	sc := NewScratch(p)
	as := newAutScratch(p)
	fc := make([]int64, p.ringN)
	p.ring.Centered(k.ev.f, fc)
	n := p.lit.LWEDim
	M := int32(p.ringM)
	rng := mrand.New(mrand.NewPCG(41, 42))
	wb := NewWideBit(p)
	for _, step := range []int32{1, 2} {
		ab, err := newAutBR(k.sk, k.ev.f, int(step), 16, p.lit.BR, autGadget3)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 6; trial++ {
			switch {
			case trial < 2:
				if err := k.enc.Encrypt(trial == 1, wb); err != nil {
					t.Fatal(err)
				}
				k.ev.toSmallLWE(wb, sc)
				if err := oddAlpha(p, sc, as, int(step)); err != nil {
					t.Fatal(err)
				}
			case trial < 4:
				for i := range as.alpha[:n] {
					as.alpha[i] = step * (2*rng.Int32N(M/(2*step)) + 1)
				}
				as.alpha[n] = rng.Int32N(M)
			default:
				a := step // 5^0: the last bucket, every automorphism before it
				if trial == 5 {
					a = M - 5*step // -5^1
				}
				for i := range as.alpha[:n] {
					as.alpha[i] = a
				}
				as.alpha[n] = rng.Int32N(M)
			}
			for i, a := range as.alpha[:n] {
				if a%(2*step) != step {
					t.Fatalf("step %d, trial %d: a_%d = %d is not a unit of the rotation", step, trial, i, a)
				}
			}
			phi := phaseOf(k, as.alpha)
			for v := range ab.vars {
				for _, w := range []int{1, 3, 10, 16} {
					ab.blindRotate(as, v, w)
					if _, worst := accErrVar(k, fc, phi, as.accB, as.accA); worst > 1<<32 {
						t.Fatalf("step %d, trial %d, gadget %v, w = %d: blind rotation error 2^%.1f", step, trial, ab.vars[v].g, w, math.Log2(worst))
					}
					if as.prods != n {
						t.Fatalf("step %d, trial %d, w = %d: %d key products, want n = %d", step, trial, w, as.prods, n)
					}
					if want := ab.autCount(as.alpha, w); as.autos != want {
						t.Fatalf("step %d, trial %d, w = %d: %d automorphisms, schedule says %d", step, trial, w, as.autos, want)
					}
				}
			}
		}
		if a := testing.AllocsPerRun(2, func() { ab.blindRotate(as, 0, 10) }); a != 0 {
			t.Fatalf("blind rotation allocates %.0f times", a)
		}
	}
}

// TestAutBRRejects checks newAutBR's argument errors.
func TestAutBRRejects(t *testing.T) {
	k := keysFor(t, ToyCBS)
	br := k.p.lit.BR
	if _, err := newAutBR(k.sk, k.ev.f, 1, 0, br); err == nil {
		t.Fatal("window 0 accepted")
	}
	if _, err := newAutBR(k.sk, k.ev.f, 2, k.p.ringN/2, br); err == nil {
		t.Fatal("window beyond M/4 accepted")
	}
	if _, err := newAutBR(k.sk, k.ev.f, 3, 4, br); err == nil {
		t.Fatal("step 3 accepted")
	}
	if _, err := newAutBR(k.sk, k.ev.f, 1, 4, Gadget{LogB: 10, Digits: 2, Drop: 0}); err == nil {
		t.Fatal("a gadget that cannot span Q accepted")
	}
}
