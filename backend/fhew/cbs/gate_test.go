package cbs

import (
	"math"
	"slices"
	"testing"
)

// encryptLWE returns an LWE sample (b, a) under the small key sk.s mod
// 2^logQ with phase bit·2^logQ/2 + e, e rounded Gaussian of deviation
// sigma (the slow obvious encryption, test side): the input CBSFromLWE
// gets from fhew's key switch.
func encryptLWE(sk *SecretKey, smp *sampler, bit int, logQ uint, sigma float64) (uint16, []uint16, int64) {
	q := int64(1) << logQ
	a := make([]uint16, len(sk.s))
	var dot int64
	for i := range a {
		x := int64(smp.uniformMod(uint64(q)))
		a[i] = uint16(x)
		dot += x * sk.s[i]
	}
	e := int64(math.Round(sigma / sk.params.lit.Sigma * float64(smp.gaussian())))
	b := (int64(bit)*(q/2) + e - dot) % q
	if b < 0 {
		b += q
	}
	return uint16(b), a, e
}

// TestCBSFromLWEBothBits circuit-bootstraps fresh LWE(s) samples of both
// bits at three input moduli (2N itself, no rounding; Q_ks; 2^16) and
// decrypts every row of the RGSW output against bit·g_j (·z).
func TestCBSFromLWEBothBits(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyCBS, ToyCBS3} {
		t.Run(lit.Name, func(t *testing.T) {
			k := keysFor(t, lit)
			sc := NewScratch(k.p)
			out := k.ev.NewRGSW()
			smp := newSampler([32]byte{7}, k.p.lit.Sigma)
			for _, logQ := range []uint{uint(k.p.lit.LogN + 1), 14, 16} {
				// Input noise at a quarter of the window: the blind rotation
				// must absorb it.
				sigma := float64(k.p.half) * math.Ldexp(1, int(logQ)-(k.p.lit.LogN+1)) / 8
				for rep := 0; rep < 2; rep++ {
					for bit := 0; bit < 2; bit++ {
						b, a, _ := encryptLWE(k.sk, smp, bit, logQ, sigma)
						if err := k.ev.CBSFromLWE(b, a, logQ, out, sc); err != nil {
							t.Fatal(err)
						}
						if worst := checkRGSW(t, k, out, bit); worst > float64(k.p.gadgetValue(k.p.lit.CBS, 0))/8 { // a wrong bit errs by g_j
							t.Fatalf("log q %d, bit %d: row error 2^%.1f too large", logQ, bit, math.Log2(worst))
						}
					}
				}
			}
		})
	}
}

func TestCBSFromLWEBadInputs(t *testing.T) {
	k := keysFor(t, ToyCBS)
	k3 := keysFor(t, ToyCBS3)
	sc := NewScratch(k.p)
	g := k.ev.NewRGSW()
	a := make([]uint16, k.p.lit.LWEDim)
	if err := k.ev.CBSFromLWE(0, a, 14, g, sc); err != nil {
		t.Fatalf("valid call refused: %v", err)
	}
	for name, err := range map[string]error{
		"short a":       k.ev.CBSFromLWE(0, a[:3], 14, g, sc),
		"log q too low": k.ev.CBSFromLWE(0, a, uint(k.p.lit.LogN), g, sc),
		"log q 17":      k.ev.CBSFromLWE(0, a, 17, g, sc),
		"nil scratch":   k.ev.CBSFromLWE(0, a, 14, g, nil),
		"other RGSW":    k.ev.CBSFromLWE(0, a, 14, k3.ev.NewRGSW(), sc),
		"nil RGSW":      k.ev.CBSFromLWE(0, a, 14, nil, sc),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if n := testing.AllocsPerRun(3, func() { _ = k.ev.CBSFromLWE(0, a, 14, g, sc) }); n != 0 {
		t.Errorf("CBSFromLWE: %v allocs", n)
	}
}

func TestNewSecretKeyWithLWE(t *testing.T) {
	p, err := NewParamsInsecure(ToyCBS)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]int32, p.LWEDim())
	for i := range s {
		s[i] = int32(i%3) - 1
	}
	sk, err := NewSecretKeyWithLWE(p, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := sk.LWESecret(); !slices.Equal(got, s) {
		t.Fatal("LWE key not taken over")
	}
	s[0] = 1 // the key holds a copy
	if sk.s[0] != -1 {
		t.Fatal("NewSecretKeyWithLWE aliases its argument")
	}
	z := sk.RingSecret()
	nonzero := 0
	for i, v := range z {
		if int64(v) != sk.z[i] || v < -1 || v > 1 {
			t.Fatalf("RingSecret()[%d] = %d, key has %d", i, v, sk.z[i])
		}
		if v != 0 {
			nonzero++
		}
	}
	if nonzero < p.N()/3 || nonzero > p.N() { // ternary: about 2N/3 nonzero
		t.Fatalf("ring key has %d nonzero coefficients of %d", nonzero, p.N())
	}
	z[0] = 5
	if sk.z[0] == 5 {
		t.Fatal("RingSecret aliases the key")
	}
	// Two keys with the same s have independent ring keys.
	sk2, err := NewSecretKeyWithLWE(p, s)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(sk2.z, sk.z) {
		t.Fatal("ring key not fresh")
	}
	for name, bad := range map[string][]int32{"short": s[:5], "long": append(slices.Clone(s), 0), "entry 2": append([]int32{2}, s[1:]...)} {
		if _, err := NewSecretKeyWithLWE(p, bad); err == nil {
			t.Errorf("%s LWE key accepted", name)
		}
	}
	if _, err := NewSecretKeyWithLWE(Params{}, s); err == nil {
		t.Error("zero Params accepted")
	}
}
