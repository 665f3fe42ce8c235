package cbs

import (
	"math"
	"sync"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// toyKeys caches one key set per toy parameter set (key generation is the
// slow part of every test).
type testKeys struct {
	p   Params
	sk  *SecretKey
	ek  *EvaluationKey
	ev  *Evaluator
	enc *Encryptor
}

var (
	keyMu    sync.Mutex
	keyCache = map[string]*testKeys{}
)

func keysFor(t testing.TB, lit ParamsLiteral) *testKeys {
	t.Helper()
	keyMu.Lock()
	defer keyMu.Unlock()
	if k, ok := keyCache[lit.Name]; ok {
		return k
	}
	p, err := NewParamsInsecure(lit)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := NewSecretKey(p)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := GenEvaluationKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := NewEvaluator(ek)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	k := &testKeys{p: p, sk: sk, ek: ek, ev: ev, enc: enc}
	keyCache[lit.Name] = k
	return k
}

// rlwePhase returns the centred coefficients of B + A·z for an NTT-domain
// pair (the slow obvious decryption).
func rlwePhase(sk *SecretKey, B, A ring.Poly2) []int64 {
	r := sk.params.ring
	t := r.NewPoly()
	r.MulCoeffs(A, sk.zNTT, t)
	r.Add(t, B, t)
	r.Inverse(t, t)
	out := make([]int64, sk.params.ringN)
	r.Centered(t, out)
	return out
}

// mulZ returns the centred coefficients of c·z (negacyclic schoolbook,
// c·z small enough for int64 here: |c| < 2^50).
func mulZ(sk *SecretKey, c int64) []int64 {
	out := make([]int64, sk.params.ringN)
	for i, zi := range sk.z {
		out[i] = c * zi
	}
	return out
}

func centre(x, Q int64) int64 {
	x %= Q
	if x > Q/2 {
		x -= Q
	}
	if x < -Q/2 {
		x += Q
	}
	return x
}

// checkRGSW decrypts every row of g and compares it with bit·g_j (rows
// j < ℓ) and bit·g_j·z (rows ℓ + j); it returns the largest error.
func checkRGSW(t *testing.T, k *testKeys, g *RGSW, bit int) float64 {
	t.Helper()
	p := k.p
	l := p.lit.CBS.Digits
	Q := int64(p.q)
	worst := 0.0
	for j := 0; j < 2*l; j++ {
		gj := int64(p.gadgetValue(p.lit.CBS, j%l))
		want := make([]int64, p.ringN)
		if bit == 1 {
			if j < l {
				want[0] = gj
			} else {
				want = mulZ(k.sk, gj)
			}
		}
		got := rlwePhase(k.sk, g.B[j], g.A[j])
		for c := range got {
			e := math.Abs(float64(centre(got[c]-want[c], Q)))
			if e > worst {
				worst = e
			}
		}
	}
	return worst
}

func TestCBSBothBits(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyCBS, ToyCBS3} {
		t.Run(lit.Name, func(t *testing.T) {
			k := keysFor(t, lit)
			sc := NewScratch(k.p)
			out := k.ev.NewRGSW()
			in := NewWideBit(k.p)
			for rep := 0; rep < 3; rep++ {
				for bit := 0; bit < 2; bit++ {
					if err := k.enc.Encrypt(bit == 1, in); err != nil {
						t.Fatal(err)
					}
					if err := k.ev.CBS(in, out, sc); err != nil {
						t.Fatal(err)
					}
					worst := checkRGSW(t, k, out, bit)
					// Row noise must be far below the smallest gadget value's
					// use: bound by 2^-12 of Q (the model's rows are ~2^-30).
					if worst > float64(k.p.q)/(1<<12) {
						t.Fatalf("bit %d: row error %.3g too large (log2 %.1f)", bit, worst, math.Log2(worst))
					}
					if rep == 0 {
						t.Logf("bit %d: largest row error 2^%.1f (Q = 2^%.1f)", bit, math.Log2(worst+1), math.Log2(float64(k.p.q)))
					}
				}
			}
		})
	}
}

func log2(x float64) float64 { return math.Log2(x) }
