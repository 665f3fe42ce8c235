package cbs

import (
	"math"
	"math/bits"
	"os"
	"testing"
)

// TestNoiseMeasured128 measures every stage's noise at STD128_CBS and
// compares the sample variance with the model (Params.Noise): the ratio
// must lie in [0.6, 1.4]. Samples taken from one ciphertext share its
// noise (the z-rows are mostly e_0·z, a table's outputs share their
// RGSWs), so the effective sample is smaller than n and the band is wider
// than a χ² band for n. The table outputs are compared with the per-input
// model (the rounding term once per 1 bit); the failure bounds use the
// all-ones bound. Opt-in (about half a minute, 0.7 GB of keys):
//
//	HCC_CBS_128=1 go test ./backend/fhew/cbs -run NoiseMeasured128 -v
func TestNoiseMeasured128(t *testing.T) {
	if os.Getenv("HCC_CBS_128") != "1" {
		t.Skip("set HCC_CBS_128=1 to measure the STD128_CBS noise")
	}
	k := keys128(t)
	p := k.p
	nm := p.Noise()
	sc := NewScratch(p)
	w := NewWideBit(p)
	Q := int64(p.q)
	M := int64(p.ringM)
	fc := make([]int64, p.ringN)
	p.ring.Centered(k.ev.f, fc)
	var phase, br, rowB, rowA, out stat
	outModel := 0.0 // Σ over table samples of the model for that input
	g := k.ev.NewRGSW()
	for rep := 0; rep < 240; rep++ {
		bit := rep % 2
		if err := k.enc.Encrypt(bit == 1, w); err != nil {
			t.Fatal(err)
		}
		k.ev.toSmallLWE(w, sc)
		phi := int64(sc.alpha[p.lit.LWEDim])
		for i, s := range k.sk.s {
			phi += int64(sc.alpha[i]) * s
		}
		phi = ((phi % M) + M) % M
		e := phi - int64(bit)*int64(p.ringN)
		if e > M/2 {
			e -= M
		}
		phase.add(float64(e))
		if rep < 8 { // blind rotation, all coefficients
			k.ev.blindRotate(sc)
			want := negRotate(fc, -int(phi), Q)
			got := rlwePhase(k.sk, sc.accB, sc.accA)
			for c := range got {
				br.add(float64(centre(got[c]-want[c], Q)))
			}
		}
		if rep < 120 { // CBS rows
			if err := k.ev.CBS(w, g, sc); err != nil {
				t.Fatal(err)
			}
			l := p.lit.CBS.Digits
			for j := 0; j < l; j++ {
				gj := int64(p.gadgetValue(p.lit.CBS, j))
				got := rlwePhase(k.sk, g.B[j], g.A[j])
				rowB.add(float64(centre(got[0]-int64(bit)*gj, Q)))
				got = rlwePhase(k.sk, g.B[l+j], g.A[l+j])
				want := mulZ(k.sk, int64(bit)*gj)
				for c := 0; c < p.ringN; c += 64 {
					rowA.add(float64(centre(got[c]-want[c], Q)))
				}
			}
		}
	}
	// Table outputs: 8 fresh CBS inputs, the S-box, 8 outputs per run.
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	rg, outs := newBuffers(k, 8, 8)
	for rep := 0; rep < 40; rep++ {
		x := (rep*37 + 11) % 256
		evalTableNoise(t, k, x, tabs, sc, rg, outs)
		for o := range outs {
			e, err := k.sk.NoiseOf(outs[o], sb[x]>>uint(o)&1 == 1)
			if err != nil {
				t.Fatal(err)
			}
			out.add(float64(e))
			outModel += p.TableOutputVarOnes(8, bits.OnesCount8(uint8(x)))
		}
	}
	for _, c := range []struct {
		name  string
		s     stat
		model float64
	}{
		{"phase at BR input (1/2N units)", phase, p.PhaseVar(nm.Fresh)},
		{"blind rotation (per coefficient)", br, nm.BR},
		{"CBS B rows (constant coefficient)", rowB, nm.RowB},
		{"CBS z-rows (every 64th coefficient)", rowA, nm.RowA},
		{"8-input table output", out, outModel / float64(out.n)},
	} {
		ratio := c.s.variance() / c.model
		t.Logf("%-38s n = %5d  measured σ 2^%.2f  model σ 2^%.2f  variance ratio %.3f",
			c.name, c.s.n, 0.5*math.Log2(c.s.variance()), 0.5*math.Log2(c.model), ratio)
		if ratio < 0.6 || ratio > 1.4 {
			t.Errorf("%s: measured/model variance %.3f outside [0.6, 1.4]", c.name, ratio)
		}
	}
}

func evalTableNoise(t *testing.T, k *testKeys, x int, tabs [][]uint64, sc *Scratch, rg []*RGSW, outs []*WideBit) {
	t.Helper()
	in := NewWideBit(k.p)
	for j := range rg {
		if err := k.enc.Encrypt(x>>uint(j)&1 == 1, in); err != nil {
			t.Fatal(err)
		}
		if err := k.ev.CBS(in, rg[j], sc); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.ev.EvalTable(rg, tabs, outs, sc); err != nil {
		t.Fatal(err)
	}
}

// stat accumulates a sample's second moment (errors have mean ~0).
type stat struct {
	n  int
	s2 float64
}

func (s *stat) add(x float64) { s.n++; s.s2 += x * x }

func (s stat) variance() float64 { return s.s2 / float64(s.n) }

// TestCorrect128 is the toy sets' correctness checks at STD128_CBS: CBS of
// both bits (every RGSW row decrypted), the S-box by vertical packing on 24
// random inputs and a XOR of 17 fresh bits then CBS (AES's largest forms).
// Opt-in with HCC_CBS_128=1 (about 10 s).
func TestCorrect128(t *testing.T) {
	if os.Getenv("HCC_CBS_128") != "1" {
		t.Skip("set HCC_CBS_128=1 to run the STD128_CBS correctness checks")
	}
	k := keys128(t)
	sc := NewScratch(k.p)
	g := k.ev.NewRGSW()
	w := NewWideBit(k.p)
	for bit := 0; bit < 2; bit++ {
		if err := k.enc.Encrypt(bit == 1, w); err != nil {
			t.Fatal(err)
		}
		if err := k.ev.CBS(w, g, sc); err != nil {
			t.Fatal(err)
		}
		if e := checkRGSW(t, k, g, bit); e > 8*math.Sqrt(k.p.Noise().RowB)*4 {
			t.Fatalf("bit %d: row error 2^%.1f", bit, math.Log2(e))
		}
	}
	acc := NewWideBit(k.p)
	par := 0
	for i := 0; i < 17; i++ {
		b := i % 3 & 1
		par ^= b
		if err := k.enc.Encrypt(b == 1, w); err != nil {
			t.Fatal(err)
		}
		if err := XorInto(k.p, acc, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.ev.CBS(acc, g, sc); err != nil {
		t.Fatal(err)
	}
	if e := checkRGSW(t, k, g, par); e > 8*math.Sqrt(k.p.Noise().RowB)*4 {
		t.Fatalf("XOR of 17: row error 2^%.1f", math.Log2(e))
	}
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	rg, outs := newBuffers(k, 8, 8)
	for rep := 0; rep < 24; rep++ {
		x := (rep*101 + 7) % 256
		if got := evalEncrypted(t, k, x, 8, tabs, sc, rg, outs); got != uint64(sb[x]) {
			t.Fatalf("S(%#02x) = %#02x, want %#02x", x, got, sb[x])
		}
	}
}
