package fhew

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// toySignedCMux2 is ToySigned on N_g = 256 with cbs.ToyCBS's N_c = 512:
// the lower path's two parts (N_c = 2·N_g). Insecure, tests only.
var toySignedCMux2 = ParamsLiteral{
	Name: "ToySignedCMux2", Method: MethodSigned,
	LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
	LWEDim: 64, LWEModulus: 512, LogN: 8, Q: 134215681,
	LogBg: 9, DropLowestDigit: true, QKS: 1 << 14, LogBKS: 5, Window: 4, Insecure: true,
	CMux:     &cbs.ToyCBS,
	Security: "none: toy set for tests only",
}

var cmuxToys = []ParamsLiteral{ToySignedCMux, toySignedCMux2}

// TestCMuxTruthTable runs Select and CMux on all 8 (s, a, b) with fresh
// encryptions and checks the MUX truth table by decryption.
func TestCMuxTruthTable(t *testing.T) {
	for _, lit := range cmuxToys {
		t.Run(lit.Name, func(t *testing.T) {
			k := kitFor(t, lit)
			if !k.p.HasCMux() {
				t.Fatal("HasCMux false")
			}
			if cp, _ := k.p.CMuxParams(); cp.N() != k.p.cmux.parts*k.p.N {
				t.Fatalf("parts %d, N_c %d, N_g %d", k.p.cmux.parts, cp.N(), k.p.N)
			}
			sc := NewScratch(k.p)
			sel := k.ev.NewSelector()
			out := NewCiphertext(k.p)
			for rep := 0; rep < 2; rep++ {
				for i := 0; i < 8; i++ {
					s, a, b := i&1, i>>1&1, i>>2&1
					if err := k.ev.Select(k.enc.EncryptNew(s), sel, sc); err != nil {
						t.Fatal(err)
					}
					if err := k.ev.CMux(sel, k.enc.EncryptNew(a), k.enc.EncryptNew(b), out, sc); err != nil {
						t.Fatal(err)
					}
					want := b
					if s == 1 {
						want = a
					}
					if got := k.decrypt(t, out); got != want {
						t.Errorf("CMux(%d, %d, %d) = %d, want %d (noise %d of Q_ks %d)", s, a, b, got, want, k.sk.NoiseOf(out, want), k.p.qks)
					}
				}
			}
		})
	}
}

// TestCMuxChainThenGate chains CMuxes (each output feeds the next as a
// data input), then a gate bootstrap consumes the result.
func TestCMuxChainThenGate(t *testing.T) {
	for _, lit := range cmuxToys {
		t.Run(lit.Name, func(t *testing.T) {
			k := kitFor(t, lit)
			sc := NewScratch(k.p)
			sels := []*Selector{k.ev.NewSelector(), k.ev.NewSelector()}
			for i, s := range sels {
				if err := k.ev.Select(k.enc.EncryptNew(i), s, sc); err != nil {
					t.Fatal(err)
				}
			}
			// v alternates through sel 1 (picks a = v) and sel 0 (picks b = v).
			v, bit := k.enc.EncryptNew(1), 1
			for step := 0; step < 8; step++ {
				other := k.enc.EncryptNew(1 - bit)
				s := sels[step%2]
				var err error
				if step%2 == 1 {
					err = k.ev.CMux(s, v, other, v, sc)
				} else {
					err = k.ev.CMux(s, other, v, v, sc)
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := k.decrypt(t, v); got != bit {
					t.Fatalf("step %d: %d, want %d", step, got, bit)
				}
			}
			out := NewCiphertext(k.p)
			k.ev.NAND(v, k.enc.EncryptNew(1), out, sc)
			if got := k.decrypt(t, out); got != 1-bit {
				t.Errorf("NAND(chain, 1) = %d, want %d", got, 1-bit)
			}
		})
	}
}

// TestCMuxLowerReference checks the lower path against an obvious
// reference: a WideBit encrypted directly under z_c has the exact phase
// φ = B + Σ A_i·z_c[i] mod Q_c (big integers); after lower, the gate
// ciphertext's phase must be φ·Q_ks/Q_c within 6 σ of the lower path's
// modelled noise (CMuxNoise().Lower).
func TestCMuxLowerReference(t *testing.T) {
	for _, lit := range cmuxToys {
		t.Run(lit.Name, func(t *testing.T) {
			k := kitFor(t, lit)
			cp, _ := k.p.CMuxParams()
			enc, err := cbs.NewEncryptor(k.sk.cbs)
			if err != nil {
				t.Fatal(err)
			}
			zc := k.sk.cbs.RingSecret()
			Qc := new(big.Int).SetUint64(cp.Q())
			sc := NewScratch(k.p)
			out := NewCiphertext(k.p)
			w := cbs.NewWideBit(cp)
			bound := 6 * math.Sqrt(k.p.CMuxNoise().Lower) * float64(k.p.qks)
			worst := 0.0
			for i := 0; i < 40; i++ {
				if err := enc.Encrypt(i&1 == 1, w); err != nil {
					t.Fatal(err)
				}
				// Random-looking phases too: shift B by a multiple of Q_c/64.
				w.B = (w.B + uint64(i)*(cp.Q()/64)) % cp.Q()
				phi := new(big.Int).SetUint64(w.B)
				for j, a := range w.A {
					phi.Add(phi, new(big.Int).Mul(new(big.Int).SetUint64(a), big.NewInt(int64(zc[j]))))
				}
				phi.Mod(phi, Qc)
				want, _ := new(big.Float).Quo(new(big.Float).SetInt(new(big.Int).Mul(phi, big.NewInt(int64(k.p.qks)))), new(big.Float).SetInt(Qc)).Float64()
				k.ev.lower(w, out, sc)
				d := math.Mod(float64(k.sk.Phase(out))-want, float64(k.p.qks))
				if d > float64(k.p.qks)/2 {
					d -= float64(k.p.qks)
				} else if d < -float64(k.p.qks)/2 {
					d += float64(k.p.qks)
				}
				worst = max(worst, math.Abs(d))
				if math.Abs(d) > bound {
					t.Errorf("phase φ·Q_ks/Q_c = %.1f, lowered %d (off by %.1f > %.1f)", want, k.sk.Phase(out), d, bound)
				}
			}
			t.Logf("largest deviation %.1f of Q_ks (6σ bound %.1f)", worst, bound)
		})
	}
}

// TestCMuxErrors checks bad inputs are errors, not panics.
func TestCMuxErrors(t *testing.T) {
	k := kitFor(t, ToySignedCMux)
	sc := NewScratch(k.p)
	sel := k.ev.NewSelector()
	x := k.enc.EncryptNew(1)
	if err := k.ev.Select(nil, sel, sc); err == nil {
		t.Error("Select(nil) accepted")
	}
	if err := k.ev.Select(x, nil, sc); err == nil {
		t.Error("Select into a nil Selector accepted")
	}
	if err := k.ev.Select(x, sel, nil); err == nil {
		t.Error("Select with a nil scratch accepted")
	}
	if err := k.ev.Select(&Ciphertext{A: make([]uint16, 3)}, sel, sc); err == nil {
		t.Error("Select of a short ciphertext accepted")
	}
	plain := kitFor(t, ToySigned)
	if err := k.ev.Select(x, sel, NewScratch(plain.p)); err == nil {
		t.Error("Select with a scratch of a set without the gadget accepted")
	}
	if err := k.ev.CMux(sel, x, nil, x, sc); err == nil {
		t.Error("CMux with a nil input accepted")
	}
	if s := plain.ev.NewSelector(); s != nil {
		t.Error("NewSelector on a set without the gadget")
	}
	if err := plain.ev.Select(plain.enc.EncryptNew(1), sel, NewScratch(plain.p)); err == nil {
		t.Error("Select on a set without the gadget accepted")
	}
	if plain.p.HasCMux() {
		t.Error("ToySigned HasCMux")
	}
	// Validation of the combined literal.
	for name, mod := range map[string]func(l *ParamsLiteral){
		"n":        func(l *ParamsLiteral) { l.LWEDim = 65 },
		"Q_ks":     func(l *ParamsLiteral) { l.QKS = 1 << 13 },
		"N":        func(l *ParamsLiteral) { l.LogN = 10; l.LWEModulus = 1024 },
		"secret":   func(l *ParamsLiteral) { l.LWESecret = SecretGaussian; l.Method = MethodLMKCDEY },
		"insecure": func(l *ParamsLiteral) { l.Insecure = false },
	} {
		l := ToySignedCMux
		mod(&l)
		if _, err := NewParamsInsecure(l); err == nil {
			t.Errorf("%s: invalid CMux set accepted", name)
		} else if !strings.Contains(err.Error(), "CBS") && !strings.Contains(err.Error(), "CMux") {
			t.Errorf("%s: error %q does not name the CMux part", name, err)
		}
	}
}
