package cbs

import (
	"math"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Each stage of CBS and vertical packing against a slow obvious reference,
// decrypting intermediate results with the secret key.

// coeffPhase decrypts a coefficient-domain RLWE pair (centred phase).
func coeffPhase(sk *SecretKey, B, A ring.Poly2) []int64 {
	r := sk.params.ring
	b, a := r.NewPoly(), r.NewPoly()
	r.Forward(B, b)
	r.Forward(A, a)
	return rlwePhase(sk, b, a)
}

// negRotate returns m·X^k (negacyclic) computed coefficient by coefficient.
func negRotate(m []int64, k int, Q int64) []int64 {
	N := len(m)
	out := make([]int64, N)
	k %= 2 * N
	if k < 0 {
		k += 2 * N
	}
	for i, v := range m {
		j := i + k
		s := int64(1)
		for j >= N {
			j -= N
			s = -s
		}
		out[j] = centre(s*v, Q)
	}
	return out
}

// encryptCoeff encrypts the centred polynomial m (RLWE, coefficient domain).
func encryptCoeff(t *testing.T, k *testKeys, smp *sampler, m []int64, B, A ring.Poly2) {
	r := k.p.ring
	msg := r.NewPoly()
	r.SetCentered(m, msg)
	r.Forward(msg, msg)
	encryptRLWE(k.sk, smp, msg, make([]int64, k.p.ringN), B, A)
	r.Inverse(B, B)
	r.Inverse(A, A)
}

func maxErr(got, want []int64, Q int64) float64 {
	w := 0.0
	for i := range got {
		w = math.Max(w, math.Abs(float64(centre(got[i]-want[i], Q))))
	}
	return w
}

func randPoly(rng *mrand.Rand, N int, bound int64) []int64 {
	m := make([]int64, N)
	for i := range m {
		m[i] = rng.Int64N(2*bound) - bound
	}
	return m
}

func TestTrace(t *testing.T) {
	k := keysFor(t, ToyCBS)
	smp := newSampler([32]byte{1}, k.p.lit.Sigma)
	rng := mrand.New(mrand.NewPCG(5, 6))
	sc := NewScratch(k.p)
	r := k.p.ring
	Q := int64(k.p.q)
	m := randPoly(rng, k.p.ringN, 1<<50)
	encryptCoeff(t, k, smp, m, sc.tB, sc.tA)
	r.MulScalar(sc.tB, k.ev.nInv, sc.tB)
	r.MulScalar(sc.tA, k.ev.nInv, sc.tA)
	r.Forward(sc.tB, sc.tB) // trace works in the NTT domain
	r.Forward(sc.tA, sc.tA)
	k.ev.trace(sc, k.p.lit.LogN, 1)
	r.Inverse(sc.tB, sc.tB)
	r.Inverse(sc.tA, sc.tA)
	want := make([]int64, k.p.ringN)
	want[0] = m[0] // Tr(N^-1·m) = m_0
	if e := maxErr(coeffPhase(k.sk, sc.tB, sc.tA), want, Q); e > 1<<30 {
		t.Fatalf("trace: error 2^%.1f", math.Log2(e))
	}
}

func TestSchemeSwitch(t *testing.T) {
	k := keysFor(t, ToyCBS)
	smp := newSampler([32]byte{2}, k.p.lit.Sigma)
	rng := mrand.New(mrand.NewPCG(7, 8))
	sc := NewScratch(k.p)
	r := k.p.ring
	Q := int64(k.p.q)
	m := make([]int64, k.p.ringN)
	m[0] = rng.Int64N(1 << 45)
	encryptCoeff(t, k, smp, m, sc.tB, sc.tA)
	bNTT, oB, oA := r.NewPoly(), r.NewPoly(), r.NewPoly()
	r.Forward(sc.tB, bNTT)
	k.ev.schemeSwitch(sc, bNTT, oB, oA)
	if e := maxErr(rlwePhase(k.sk, oB, oA), mulZ(k.sk, m[0]), Q); e > 1<<30 {
		t.Fatalf("scheme switch: error 2^%.1f", math.Log2(e))
	}
}

func TestCMux(t *testing.T) {
	k := keysFor(t, ToyCBS)
	smp := newSampler([32]byte{3}, k.p.lit.Sigma)
	rng := mrand.New(mrand.NewPCG(9, 10))
	sc := NewScratch(k.p)
	Q := int64(k.p.q)
	g := k.ev.NewRGSW()
	for bit := 0; bit < 2; bit++ {
		encryptRGSWBit(k.sk, smp, bit, k.p.lit.CBS, make([]int64, k.p.ringN), g, true)
		for _, shift := range []int{1, 16, 255} {
			m := randPoly(rng, k.p.ringN, int64(k.p.q/2-1))
			encryptCoeff(t, k, smp, m, sc.tB, sc.tA)
			k.ev.cmux(g, shift, sc)
			want := m
			if bit == 1 {
				want = negRotate(m, -shift, Q)
			}
			if e := maxErr(coeffPhase(k.sk, sc.tB, sc.tA), want, Q); e > 8*math.Sqrt(k.p.Noise().CMux) {
				t.Fatalf("CMux bit %d shift %d: error 2^%.1f", bit, shift, math.Log2(e))
			}
		}
	}
}

func TestExtraction(t *testing.T) {
	k := keysFor(t, ToyCBS)
	smp := newSampler([32]byte{4}, k.p.lit.Sigma)
	rng := mrand.New(mrand.NewPCG(11, 12))
	sc := NewScratch(k.p)
	r := k.p.ring
	m := randPoly(rng, k.p.ringN, int64(k.p.q/2-1))
	encryptCoeff(t, k, smp, m, sc.tB, sc.tA)
	ph := coeffPhase(k.sk, sc.tB, sc.tA)
	r.Centered(sc.tA, sc.cen)
	r.Centered(sc.tB, sc.cen2)
	w := NewWideBit(k.p)
	for c := 0; c < k.p.ringN; c++ {
		extractLWE(k.p, sc.cen, sc.cen2, c, w)
		got, err := k.sk.Phase(w)
		if err != nil {
			t.Fatal(err)
		}
		if got != ph[c] {
			t.Fatalf("coefficient %d: LWE phase %d, RLWE phase %d", c, got, ph[c])
		}
	}
}

func TestModSwitchExact(t *testing.T) {
	p, _ := NewParamsInsecure(ToyCBS)
	rng := mrand.New(mrand.NewPCG(13, 14))
	Q := new(big.Int).SetUint64(p.q)
	for i := 0; i < 2000; i++ {
		x := rng.Uint64N(p.q)
		if i < 4 {
			x = []uint64{0, 1, p.q - 1, p.q / 2}[i]
		}
		// round(x·2^16/Q) = floor((x·2^16 + floor(Q/2))/Q)
		v := new(big.Int).Lsh(new(big.Int).SetUint64(x), 16)
		v.Add(v, new(big.Int).Rsh(Q, 1))
		v.Div(v, Q)
		want := v.Uint64() & 0xffff
		if got := modSwitchCoeff(x, p.q, 16); got != want {
			t.Fatalf("modSwitch(%d) = %d, want %d", x, got, want)
		}
	}
}

// TestKeySwitchAndBlindRotation checks the small LWE ciphertext against
// the wide bit's phase (decrypting with s) and the blind-rotated
// accumulator against X^{-φ}·f computed from s directly.
func TestKeySwitchAndBlindRotation(t *testing.T) {
	k := keysFor(t, ToyCBS)
	p := k.p
	sc := NewScratch(p)
	w := NewWideBit(p)
	Q := int64(p.q)
	fc := make([]int64, p.ringN)
	p.ring.Centered(k.ev.f, fc)
	for bit := 0; bit < 2; bit++ {
		if err := k.enc.Encrypt(bit == 1, w); err != nil {
			t.Fatal(err)
		}
		k.ev.toSmallLWE(w, sc)
		M := int64(p.ringM)
		phi := int64(sc.alpha[p.lit.LWEDim])
		for i, s := range k.sk.s {
			phi += int64(sc.alpha[i]) * s
		}
		phi = ((phi % M) + M) % M
		e := phi - int64(bit)*int64(p.ringN)
		if e > M/2 {
			e -= M
		}
		if math.Abs(float64(e)) > 8*math.Sqrt(p.PhaseVar(p.Noise().Fresh)) {
			t.Fatalf("bit %d: phase after key switch %d, error %d beyond 8σ", bit, phi, e)
		}
		k.ev.blindRotate(sc)
		want := negRotate(fc, -int(phi), Q)
		got := rlwePhase(k.sk, sc.accB, sc.accA)
		if err := maxErr(got, want, Q); err > 1<<32 {
			t.Fatalf("bit %d: blind rotation error 2^%.1f", bit, math.Log2(err))
		}
	}
}
