package cbs

import (
	"math"
	mrand "math/rand/v2"
	"os"
	"testing"
)

// TestInputRGSWNoiseMeasured measures the rows of InputFormRGSW's output
// for 1, 2 and 3 terms at ToyCBS (every coefficient of every row) against
// the model per sample (the rounding term only for the products whose
// RGSW bit is 1): variance ratio in [0.7, 1.3].
func TestInputRGSWNoiseMeasured(t *testing.T) {
	k := keysFor(t, ToyCBS)
	measureInputRows(t, k, 12)
}

// measureInputRows is TestInputRGSWNoiseMeasured's body: reps random bit
// vectors per term count.
func measureInputRows(t *testing.T, k *testKeys, reps int) {
	p := k.p
	l := p.lit.CBS.Digits
	Q := int64(p.q)
	sc := NewScratch(p)
	out := k.ev.NewRGSW()
	pd, pr := p.inputProductVars()
	rng := mrand.New(mrand.NewPCG(43, 44))
	for terms := 1; terms <= 3; terms++ {
		var s stat
		model := 0.0
		for rep := 0; rep < reps; rep++ {
			bits := make([]bool, terms)
			par := 0
			for j := range bits {
				bits[j] = rng.IntN(2) == 1
				if bits[j] {
					par ^= 1
				}
			}
			if err := k.ev.InputFormRGSW(inputRGSWs(t, k, bits), out, sc); err != nil {
				t.Fatal(err)
			}
			// Products run for terms 2..t; the one of term j rounds with
			// bit j's value.
			prod := 0.0
			for _, b := range bits[1:] {
				prod += pd
				if b {
					prod += pr
				}
			}
			for row := 0; row < 2*l; row++ {
				j := row % l
				gj := int64(p.gadgetValue(p.lit.CBS, j))
				want := make([]int64, p.ringN)
				if par == 1 {
					if row < l {
						want[0] = gj
					} else {
						want = mulZ(k.sk, gj)
					}
				}
				got := rlwePhase(k.sk, out.B[row], out.A[row])
				for c := range got {
					s.add(float64(centre(got[c]-want[c], Q)))
				}
				model += float64(p.ringN) * (p.inputRowVar(1, j) + prod)
			}
		}
		ratio := s.variance() / (model / float64(s.n))
		t.Logf("%d term(s): n = %d, measured σ 2^%.2f, model σ 2^%.2f (bound 2^%.2f), variance ratio %.3f", terms, s.n,
			0.5*log2(s.variance()), 0.5*log2(model/float64(s.n)), 0.5*log2(p.InputFormRowVar(terms)), ratio)
		if ratio < 0.7 || ratio > 1.3 {
			t.Errorf("%d terms: measured/model variance %.3f outside [0.7, 1.3]", terms, ratio)
		}
	}
}

// TestInputRGSWModel checks the model's promises at STD128_CBS: the term
// limit (cost-bound, noise allows more), tables mixing direct and
// bootstrapped inputs staying below TableOutputVar, the failure bound
// over bootstrapped inputs only, and the cost of AES's forms.
func TestInputRGSWModel(t *testing.T) {
	p, err := NewParams(STD128_CBS)
	if err != nil {
		t.Fatal(err)
	}
	g := p.InputGadget()
	if g != (Gadget{LogB: 13, Digits: 3, Drop: 16}) {
		t.Fatalf("input gadget %v", g)
	}
	nm := p.Noise()
	mt := p.InputFormMaxTerms()
	t.Logf("input gadget %v: product σ 2^%.2f, rows σ 2^%.2f (1 term) 2^%.2f (2) 2^%.2f (3); CBS B row σ 2^%.2f; "+
		"2-term form %.4f NAND vs CBS %.2f; max terms %d",
		g, 0.5*log2(p.InputProductVar()), 0.5*log2(p.InputFormRowVar(1)), 0.5*log2(p.InputFormRowVar(2)),
		0.5*log2(p.InputFormRowVar(3)), 0.5*log2(nm.RowB), p.InputFormCost(2), p.Cost().CBS, mt)
	if mt != 70 {
		t.Fatalf("InputFormMaxTerms = %d, want 70 (556·6 transforms of a BR over 1.5·8·(4(t-1)+1))", mt)
	}
	if !(p.InputFormCost(mt) < p.Cost().CBS && p.InputFormCost(mt+1) >= p.Cost().CBS) {
		t.Fatalf("cost boundary wrong at %d", mt)
	}
	if float64(p.ringN)*p.InputFormRowVar(mt) > nm.RowBEnergy {
		t.Fatal("rows at the term limit noisier than a CBS row")
	}
	rng := mrand.New(mrand.NewPCG(45, 46))
	for rep := 0; rep < 200; rep++ {
		kk := 1 + rng.IntN(8)
		d := make([]int, kk)
		for j := range d {
			if rng.IntN(2) == 0 {
				d[j] = 1 + rng.IntN(mt)
			}
		}
		if v, b := p.TableOutputVarDirect(d), p.TableOutputVar(kk); v > b {
			t.Fatalf("direct %v: output variance 2^%.2f above TableOutputVar 2^%.2f", d, log2(v), log2(b))
		}
	}
	if v, b := p.TableOutputVarDirect(make([]int, 8)), p.TableOutputVar(8); math.Abs(v-b) > 1e-9*b {
		t.Fatalf("no direct inputs: %v, want TableOutputVar %v", v, b)
	}
	two := []int{2, 2, 2, 2, 2, 2, 2, 2}
	t.Logf("8-input table, all inputs 2-term direct: output σ 2^%.2f (bootstrapped 2^%.2f)",
		0.5*log2(p.TableOutputVarDirect(two)), 0.5*log2(p.TableOutputVar(8)))
	terms := []int{2, 17, 2, 1}
	if f := p.TableFailureLog2Direct(terms, []bool{true, false, true, true}); f != p.TableFailureLog2([]int{17}) {
		t.Fatalf("failure with one bootstrapped input: %v", f)
	}
	if f := p.TableFailureLog2Direct(terms, []bool{true, true, true, true}); !math.IsInf(f, -1) {
		t.Fatalf("failure without bootstrapped inputs: %v, want -Inf", f)
	}
	if f := p.TableFailureLog2Direct(terms, nil); f != p.TableFailureLog2(terms) {
		t.Fatalf("nil direct: %v", f)
	}
	if c1, c2, c3 := p.InputFormCost(1), p.InputFormCost(2), p.InputFormCost(3); c1 <= 0 || math.Abs((c3-c2)-(c2-c1)) > 1e-12 || c2 > 0.02*p.Cost().CBS {
		t.Fatal("InputFormCost not linear in the products")
	}
}

// measureDirectTable evaluates the S-box (8 inputs, 8 outputs) on RGSWs
// built by InputFormRGSW from 2-term forms (x_j = a_j ⊕ b_j) for reps
// random bytes, checks every output and compares the outputs' noise with
// the per-input model (tableOutputVarDirectBits): ratio in [0.6, 1.4].
func measureDirectTable(t *testing.T, k *testKeys, reps int) {
	p := k.p
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	rg, outs := newBuffers(k, 8, 8)
	sc := NewScratch(p)
	direct := []int{2, 2, 2, 2, 2, 2, 2, 2}
	rng := mrand.New(mrand.NewPCG(51, 52))
	var s stat
	model := 0.0
	for rep := 0; rep < reps; rep++ {
		x, a := rng.IntN(256), rng.IntN(256)
		for j := range rg {
			bits := []bool{a>>uint(j)&1 == 1, (a^x)>>uint(j)&1 == 1}
			if err := k.ev.InputFormRGSW(inputRGSWs(t, k, bits), rg[j], sc); err != nil {
				t.Fatal(err)
			}
		}
		if err := k.ev.EvalTable(rg, tabs, outs, sc); err != nil {
			t.Fatal(err)
		}
		for o := range outs {
			want := sb[x]>>uint(o)&1 == 1
			if got, err := k.sk.Decrypt(outs[o]); err != nil || got != want {
				t.Fatalf("S(%#02x) bit %d: %v (%v)", x, o, got, err)
			}
			e, err := k.sk.NoiseOf(outs[o], want)
			if err != nil {
				t.Fatal(err)
			}
			s.add(float64(e))
			model += p.tableOutputVarDirectBits(direct, x)
		}
	}
	ratio := s.variance() / (model / float64(s.n))
	z2 := 0.0
	for _, z := range k.sk.z {
		z2 += float64(z * z)
	}
	t.Logf("key: ‖z‖² / (2N/3) = %.3f (the rounding term's factor)", z2/(ternaryVar*float64(p.ringN)))
	t.Logf("S-box on 2-term direct inputs: n = %d, output σ 2^%.2f, model 2^%.2f (bound 2^%.2f; bootstrapped inputs 2^%.2f), variance ratio %.3f",
		s.n, 0.5*log2(s.variance()), 0.5*log2(model/float64(s.n)), 0.5*log2(p.TableOutputVarDirect(direct)),
		0.5*log2(p.TableOutputVar(8)), ratio)
	if ratio < 0.6 || ratio > 1.4 {
		t.Errorf("table outputs: measured/model variance %.3f outside [0.6, 1.4]", ratio)
	}
}

func TestInputRGSWTableNoise(t *testing.T) { measureDirectTable(t, keysFor(t, ToyCBS), 100) }

// TestInputRGSWNoise128 is TestInputRGSWNoiseMeasured and
// TestInputRGSWTableNoise at STD128_CBS. Opt-in (about 20 s, 0.3 GB of
// keys):
//
//	HCC_CBS_128=1 go test ./backend/fhew/cbs -run InputRGSWNoise128 -v
func TestInputRGSWNoise128(t *testing.T) {
	if os.Getenv("HCC_CBS_128") != "1" {
		t.Skip("set HCC_CBS_128=1 to measure the input RGSWs' noise at STD128_CBS")
	}
	k := keys128(t)
	measureInputRows(t, k, 6)
	measureDirectTable(t, k, 160)
}
