package cbs

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// gateKeys is a gate-mode key set: a CBS secret key sharing the LWE key s
// with a (simulated) gate engine whose ring key zg has degree len(zg).
type gateKeys struct {
	p   Params
	sk  *SecretKey
	zg  []int32
	lq  uint
	ek  *EvaluationKey
	ev  *Evaluator
	smp *sampler
}

var gateCache = map[string]*gateKeys{}

// gateKeysFor makes (once per set, N_g and log q) a gate-mode key set; the
// gate ring key zg is ternary from a fixed test seed.
func gateKeysFor(t testing.TB, lit ParamsLiteral, ng int, logQg uint) *gateKeys {
	t.Helper()
	keyMu.Lock()
	defer keyMu.Unlock()
	name := fmt.Sprintf("%s/%d/%d", lit.Name, ng, logQg)
	if k, ok := gateCache[name]; ok {
		return k
	}
	p, err := NewParamsInsecure(lit)
	if err != nil {
		t.Fatal(err)
	}
	smp := newSampler([32]byte{byte(ng), byte(logQg), 3}, p.lit.Sigma)
	s := make([]int32, p.LWEDim())
	for i := range s {
		s[i] = int32(smp.ternary())
	}
	sk, err := NewSecretKeyWithLWE(p, s)
	if err != nil {
		t.Fatal(err)
	}
	zg := make([]int32, ng)
	for i := range zg {
		zg[i] = int32(smp.ternary())
	}
	ek, err := GenGateEvaluationKey(sk, zg, logQg)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := NewEvaluator(ek)
	if err != nil {
		t.Fatal(err)
	}
	k := &gateKeys{p: p, sk: sk, zg: zg, lq: logQg, ek: ek, ev: ev, smp: smp}
	gateCache[name] = k
	return k
}

// encryptGate returns a gate ciphertext (b, a) under zg mod 2^k with phase
// m·2^k/4 + e (P = 4, fhew's encoding), e of deviation sigma, and its
// integer phase Φ = centred(b) + Σ centred(a_i)·zg_i (the value Lift
// scales by Q/2^k; Φ ≡ the phase mod 2^k).
func (k *gateKeys) encryptGate(m int, sigma float64) (uint16, []uint16, int64) {
	q := int64(1) << k.lq
	cen := func(x int64) int64 {
		if x >= q/2 {
			return x - q
		}
		return x
	}
	a := make([]uint16, len(k.zg))
	var dot int64
	for i := range a {
		x := int64(k.smp.uniformMod(uint64(q)))
		a[i] = uint16(x)
		dot += cen(x) * int64(k.zg[i])
	}
	e := int64(math.Round(sigma / k.p.lit.Sigma * float64(k.smp.gaussian())))
	b := ((int64(m)*(q/4)+e-dot)%q + q) % q
	return uint16(b), a, cen(b) + dot
}

// scaledPhase returns round(Q·Φ/2^k) mod Q, centred (exact, big.Int).
func scaledPhase(p Params, phi int64, k uint) int64 {
	Q := new(big.Int).SetUint64(p.q)
	x := new(big.Int).Mul(big.NewInt(phi), Q)
	x.Add(x, new(big.Int).Lsh(big.NewInt(1), k-1))
	x.Rsh(x, k) // floor: rounds half up
	x.Mod(x, Q)
	return centre(x.Int64(), int64(p.q))
}

// rlweConst returns the centred constant coefficient of the phase B + A·z
// of a coefficient-domain RLWE (slow path: NTT, product, inverse).
func rlweConst(sk *SecretKey, c *RLWE) int64 {
	r := sk.params.ring
	B, A := r.NewPoly(), r.NewPoly()
	r.Forward(c.B, B)
	r.Forward(c.A, A)
	return rlwePhase(sk, B, A)[0]
}

// liftErr lifts a fresh gate ciphertext of m and returns the lift's error
// in the constant coefficient against (Q/2^k)·Φ.
func liftErr(t *testing.T, k *gateKeys, m int, out *RLWE, sc *Scratch) int64 {
	t.Helper()
	b, a, phi := k.encryptGate(m, 8)
	if err := k.ev.Lift(b, a, k.lq, out, sc); err != nil {
		t.Fatal(err)
	}
	return centre(rlweConst(k.sk, out)-scaledPhase(k.p, phi, k.lq), int64(k.p.q))
}

func TestLift(t *testing.T) {
	for _, ng := range []int{512, 256} {
		for _, lq := range []uint{14, 16} {
			t.Run(fmt.Sprintf("Ng=%d/logq=%d", ng, lq), func(t *testing.T) {
				k := gateKeysFor(t, ToyCBS, ng, lq)
				sc := NewScratch(k.p)
				out := k.ev.NewRLWE()
				worst := 0.0
				for rep := 0; rep < 16; rep++ {
					e := math.Abs(float64(liftErr(t, k, rep%2, out, sc)))
					worst = math.Max(worst, e)
				}
				// A wrong lift errs by about Q/2^k or more; the lift's own
				// noise is near 2^24 (LiftVar).
				if worst > math.Ldexp(float64(k.p.q), -28) {
					t.Fatalf("lift error 2^%.1f", math.Log2(worst))
				}
				t.Logf("largest lift error 2^%.1f of Q = 2^%.1f", math.Log2(worst+1), math.Log2(float64(k.p.q)))
			})
		}
	}
}

// TestGateCMux runs Lift, CMux and ExtractConst on every (sel, a, b) bit
// combination and decodes the extracted P = 4 phase (round(4·phase/Q)),
// with the output aliasing neither input, a, and b.
func TestGateCMux(t *testing.T) {
	for _, ng := range []int{512, 256} {
		t.Run(fmt.Sprintf("Ng=%d", ng), func(t *testing.T) { checkGateCMux(t, gateKeysFor(t, ToyCBS, ng, 15)) })
	}
}

// TestGateCorrect128 is TestGateCMux and CBSFromLWE of both bits (every
// RGSW row) on STD128_CBS_T with N_g = 1024. Opt-in (HCC_CBS_128=1, a few
// seconds).
func TestGateCorrect128(t *testing.T) {
	if os.Getenv("HCC_CBS_128") != "1" {
		t.Skip("set HCC_CBS_128=1 to run the STD128_CBS_T gate-mode checks")
	}
	k := gateKeysFor(t, STD128_CBS_T, 1024, 15)
	sc := NewScratch(k.p)
	g := k.ev.NewRGSW()
	for bit := 0; bit < 2; bit++ {
		sb, sa, _ := encryptLWE(k.sk, k.smp, bit, 15, 16)
		if err := k.ev.CBSFromLWE(sb, sa, 15, g, sc); err != nil {
			t.Fatal(err)
		}
		if e := checkRGSW(t, &testKeys{p: k.p, sk: k.sk}, g, bit); e > float64(k.p.gadgetValue(k.p.lit.CBS, 0))/8 {
			t.Fatalf("bit %d: row error 2^%.1f", bit, math.Log2(e))
		}
	}
	checkGateCMux(t, k)
}

func checkGateCMux(t *testing.T, k *gateKeys) {
	t.Helper()
	sc := NewScratch(k.p)
	sel := k.ev.NewRGSW()
	A, B, out := k.ev.NewRLWE(), k.ev.NewRLWE(), k.ev.NewRLWE()
	w := NewWideBit(k.p)
	Q := float64(k.p.q)
	for combo := 0; combo < 8*3; combo++ {
		s, ma, mb, alias := combo&1, combo>>1&1, combo>>2&1, combo/8
		sb, sa, _ := encryptLWE(k.sk, k.smp, s, 15, 16)
		if err := k.ev.CBSFromLWE(sb, sa, 15, sel, sc); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			m   int
			dst *RLWE
		}{{ma, A}, {mb, B}} {
			b, a, _ := k.encryptGate(c.m, 8)
			if err := k.ev.Lift(b, a, 15, c.dst, sc); err != nil {
				t.Fatal(err)
			}
		}
		dst := [3]*RLWE{out, A, B}[alias]
		if err := k.ev.CMux(sel, A, B, dst, sc); err != nil {
			t.Fatal(err)
		}
		if err := k.ev.ExtractConst(dst, w); err != nil {
			t.Fatal(err)
		}
		ph, err := k.sk.Phase(w)
		if err != nil {
			t.Fatal(err)
		}
		want := mb
		if s == 1 {
			want = ma
		}
		got := int(math.Round(4*float64(ph)/Q)) & 3
		if got != want {
			t.Fatalf("sel %d a %d b %d (alias %d): decoded %d, want %d (phase %d)", s, ma, mb, alias, got, want, ph)
		}
		if e := float64(ph) - float64(want)*Q/4; math.Abs(e) > Q/64 {
			t.Fatalf("sel %d a %d b %d: error %.3g of Q/4 too large", s, ma, mb, e/(Q/4))
		}
	}
}

func TestGateModeBadInputs(t *testing.T) {
	k := gateKeysFor(t, ToyCBS, 512, 15)
	full := keysFor(t, ToyCBS)
	k3 := keysFor(t, ToyCBS3)
	sc := NewScratch(k.p)
	if err := k.ev.CBS(NewWideBit(k.p), k.ev.NewRGSW(), sc); err == nil {
		t.Error("CBS on a gate-mode key accepted")
	}
	zg := k.zg
	for name, c := range map[string]struct {
		sk *SecretKey
		zg []int32
		lq uint
	}{
		"nil key": {nil, zg, 15}, "N_g 3": {k.sk, zg[:3], 15}, "N_g 0": {k.sk, nil, 15},
		"N_g 2N":  {k.sk, append(append([]int32(nil), zg...), zg...), 15},
		"entry 2": {k.sk, append([]int32{2}, zg[1:]...), 15}, "log q 1": {k.sk, zg, 1}, "log q 17": {k.sk, zg, 17},
	} {
		if _, err := GenGateEvaluationKey(c.sk, c.zg, c.lq); err == nil {
			t.Errorf("GenGateEvaluationKey %s: accepted", name)
		}
	}
	b, a, _ := k.encryptGate(1, 8)
	out := k.ev.NewRLWE()
	if err := k.ev.Lift(b, a, 15, out, sc); err != nil {
		t.Fatalf("valid lift refused: %v", err)
	}
	for name, err := range map[string]error{
		"full key":    full.ev.Lift(b, a, 15, full.ev.NewRLWE(), NewScratch(full.p)),
		"short a":     k.ev.Lift(b, a[:256], 15, out, sc),
		"log q 14":    k.ev.Lift(b, a, 14, out, sc),
		"nil out":     k.ev.Lift(b, a, 15, nil, sc),
		"bad out":     k.ev.Lift(b, a, 15, &RLWE{}, sc),
		"nil scratch": k.ev.Lift(b, a, 15, out, nil),
	} {
		if err == nil {
			t.Errorf("Lift %s: accepted", name)
		}
	}
	g := k.ev.NewRGSW()
	for name, err := range map[string]error{
		"nil sel":     k.ev.CMux(nil, out, out, out, sc),
		"other sel":   k.ev.CMux(k3.ev.NewRGSW(), out, out, out, sc),
		"nil a":       k.ev.CMux(g, nil, out, out, sc),
		"bad b":       k.ev.CMux(g, out, &RLWE{B: ring.Poly2{}, A: out.A}, out, sc),
		"nil out":     k.ev.CMux(g, out, out, nil, sc),
		"nil scratch": k.ev.CMux(g, out, out, out, nil),
		"extract nil": k.ev.ExtractConst(nil, NewWideBit(k.p)),
		"extract bad": k.ev.ExtractConst(out, &WideBit{A: make([]uint64, 3)}),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestGateZeroAllocs(t *testing.T) {
	k := gateKeysFor(t, ToyCBS, 256, 15)
	sc := NewScratch(k.p)
	b, a, _ := k.encryptGate(1, 8)
	sb, sa, _ := encryptLWE(k.sk, k.smp, 1, 15, 16)
	sel := k.ev.NewRGSW()
	x, y := k.ev.NewRLWE(), k.ev.NewRLWE()
	w := NewWideBit(k.p)
	for name, f := range map[string]func(){
		"CBSFromLWE":   func() { _ = k.ev.CBSFromLWE(sb, sa, 15, sel, sc) },
		"Lift":         func() { _ = k.ev.Lift(b, a, 15, x, sc) },
		"CMux":         func() { _ = k.ev.CMux(sel, x, y, y, sc) },
		"ExtractConst": func() { _ = k.ev.ExtractConst(y, w) },
	} {
		if n := testing.AllocsPerRun(3, f); n != 0 {
			t.Errorf("%s: %v allocs", name, n)
		}
	}
}
