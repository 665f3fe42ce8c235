package cbs

import (
	"errors"
	"math"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

func TestNoiseModel128(t *testing.T) {
	p, err := NewParams(STD128_CBS)
	if err != nil {
		t.Fatal(err)
	}
	nm := p.Noise()
	t.Logf("BR σ 2^%.1f, trace 2^%.1f, rows B/A 2^%.1f/2^%.1f, CMux 2^%.1f, 8-input output 2^%.1f (of Q = 2^%.1f)",
		0.5*math.Log2(nm.BR), 0.5*math.Log2(nm.Trace), 0.5*math.Log2(nm.RowB), 0.5*math.Log2(nm.RowA),
		0.5*math.Log2(nm.CMux), 0.5*math.Log2(p.TableOutputVar(8)), math.Log2(float64(p.q)))
	t.Logf("phase σ (1/2N units) fresh %.1f, 18 terms %.1f; window half-width %d", math.Sqrt(p.PhaseVar(nm.Fresh)),
		math.Sqrt(p.PhaseVar(18*p.TableOutputVar(8))), p.WindowHalfWidth())
	mt := p.MaxTerms(-50)
	t.Logf("per CBS: 1 term 2^%.0f, 18 terms 2^%.0f; MaxTerms(2^-50) = %d", p.TermsFailureLog2(1), p.TermsFailureLog2(18), mt)
	// AES's linear forms reach 18 terms (MixColumns + round key).
	if mt < 18 {
		t.Fatalf("MaxTerms = %d < 18", mt)
	}
	if !(p.TermsFailureLog2(mt) <= -50 && p.TermsFailureLog2(mt+1) > -50) {
		t.Fatalf("MaxTerms boundary wrong: %v, %v", p.TermsFailureLog2(mt), p.TermsFailureLog2(mt+1))
	}
	prev := math.Inf(-1)
	for terms := 1; terms < 300; terms += 7 {
		f := p.TermsFailureLog2(terms)
		if f < prev {
			t.Fatalf("failure not monotone in terms at %d", terms)
		}
		prev = f
	}
	// A table of 8 inputs with 18 terms each: 8 CBS.
	tf := p.TableFailureLog2([]int{18, 18, 18, 18, 18, 18, 18, 18})
	if math.Abs(tf-(p.TermsFailureLog2(18)+3)) > 1e-9 {
		t.Fatalf("table failure %v, want 8x one CBS", tf)
	}
	if d := p.DecryptFailureLog2(p.TableOutputVar(8)); d > -1000 {
		t.Fatalf("output decryption failure 2^%.0f implausibly high", d)
	}
}

func TestLog2Erfc(t *testing.T) {
	for _, x := range []float64{0.5, 1, 3, 4.99} {
		if d := log2Erfc(x) - math.Log2(math.Erfc(x)); math.Abs(d) > 1e-12 {
			t.Fatalf("x = %v: %v", x, d)
		}
	}
	// Both branches agree at the switch, and the series matches erfc where
	// it still has range.
	for _, x := range []float64{5, 6, 10, 20} {
		if d := log2Erfc(x) - math.Log2(math.Erfc(x)); math.Abs(d) > 1e-3 {
			t.Fatalf("x = %v: series off by %v bits", x, d)
		}
	}
}

// TestDigitVarMeasured decomposes uniform values with the ring's Decompose
// and compares Σ_j Var(d_j) and the rounding variance with the model.
func TestDigitVarMeasured(t *testing.T) {
	p, _ := NewParamsInsecure(ToyCBS)
	r := p.ring
	smp := newSampler([32]byte{9}, 3.19)
	in := r.NewPoly()
	for _, g := range []Gadget{p.lit.BR, p.lit.Trace, p.lit.CBS} {
		dig := make([]ring.Poly2, g.Digits)
		for j := range dig {
			dig[j] = r.NewPoly()
		}
		sum, n := 0.0, 0
		cen := make([]int64, p.ringN)
		for rep := 0; rep < 20; rep++ {
			smp.uniformPoly(r, in)
			r.Decompose(in, g.LogB, g.Digits, g.Drop, dig)
			for j := range dig {
				r.Centered(dig[j], cen)
				for _, d := range cen {
					sum += float64(d) * float64(d)
				}
			}
			n += p.ringN
		}
		got, want := sum/float64(n), digitVar(g, float64(p.q))
		if got/want < 0.9 || got/want > 1.1 {
			t.Fatalf("gadget %v: Σ Var(d_j) measured %.4g, model %.4g", g, got, want)
		}
	}
}

func TestParamsValidation(t *testing.T) {
	if _, err := NewParams(ToyCBS); !errors.Is(err, ErrInsecure) {
		t.Fatalf("NewParams(ToyCBS): %v, want ErrInsecure", err)
	}
	bad := []func(*ParamsLiteral){
		func(l *ParamsLiteral) { l.LogN = 3 },
		func(l *ParamsLiteral) { l.Q0 = 134176771 },
		func(l *ParamsLiteral) { l.Q1 = l.Q0 },
		func(l *ParamsLiteral) { l.LWEDim = 0 },
		func(l *ParamsLiteral) { l.LogQKS = 17 },
		func(l *ParamsLiteral) { l.BR.Digits = 1 },
		func(l *ParamsLiteral) { l.CBS.Drop = 0; l.CBS.LogB = 28 },
		func(l *ParamsLiteral) { l.CBS = Gadget{LogB: 2, Digits: 200, Drop: 0} },
		func(l *ParamsLiteral) { l.Sigma = 0 },
	}
	for i, f := range bad {
		l := ToyCBS
		f(&l)
		if _, err := NewParamsInsecure(l); err == nil {
			t.Errorf("case %d: invalid literal accepted", i)
		}
	}
	var zero Params
	if _, err := NewSecretKey(zero); err == nil {
		t.Error("NewSecretKey(zero Params) accepted")
	}
	if _, err := GenEvaluationKey(nil); err == nil {
		t.Error("GenEvaluationKey(nil) accepted")
	}
	if _, err := NewEvaluator(nil); err == nil {
		t.Error("NewEvaluator(nil) accepted")
	}
}

func TestBadInputs(t *testing.T) {
	k := keysFor(t, ToyCBS)
	k3 := keysFor(t, ToyCBS3)
	sc := NewScratch(k.p)
	g := k.ev.NewRGSW()
	w := NewWideBit(k.p)
	if err := k.ev.CBS(&WideBit{A: make([]uint64, 3)}, g, sc); err == nil {
		t.Error("CBS of a short wide bit accepted")
	}
	if err := k.ev.CBS(w, k3.ev.NewRGSW(), sc); err == nil {
		t.Error("CBS into another set's RGSW accepted")
	}
	half := k.ev.NewRGSW()
	half.A[3] = ring.Poly2{}
	if err := k.ev.CBS(w, half, sc); err == nil {
		t.Error("CBS into an RGSW with a missing row accepted")
	}
	if err := k.ev.CBS(w, g, nil); err == nil {
		t.Error("CBS with nil scratch accepted")
	}
	tab := [][]uint64{{0x96}}
	if err := k.ev.EvalTable([]*RGSW{g, g, g}, tab, []*WideBit{w}, sc); err != nil {
		t.Errorf("valid 3-input table refused: %v", err)
	}
	cases := []struct {
		in   []*RGSW
		tabs [][]uint64
		out  []*WideBit
	}{
		{nil, tab, []*WideBit{w}},
		{make([]*RGSW, 9), [][]uint64{make([]uint64, 8)}, []*WideBit{w}},
		{[]*RGSW{g, g, g}, [][]uint64{{1, 2}}, []*WideBit{w}},
		{[]*RGSW{g, g, g}, tab, nil},
		{[]*RGSW{g, nil, g}, tab, []*WideBit{w}},
		{[]*RGSW{g, g, g}, tab, []*WideBit{NewWideBit(Params{ringN: 4})}},
	}
	for i, c := range cases {
		if err := k.ev.EvalTable(c.in, c.tabs, c.out, sc); err == nil {
			t.Errorf("case %d: bad table call accepted", i)
		}
	}
	if err := XorInto(k.p, w, &WideBit{}); err == nil {
		t.Error("XorInto of an empty wide bit accepted")
	}
	if _, err := k.sk.Decrypt(nil); err == nil {
		t.Error("Decrypt(nil) accepted")
	}
}

func TestZeroAllocs(t *testing.T) {
	k := keysFor(t, ToyCBS)
	sc := NewScratch(k.p)
	rg, outs := newBuffers(k, 8, 8)
	in := NewWideBit(k.p)
	if err := k.enc.Encrypt(true, in); err != nil {
		t.Fatal(err)
	}
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	if a := testing.AllocsPerRun(3, func() { _ = k.ev.CBS(in, rg[0], sc) }); a != 0 {
		t.Errorf("CBS: %v allocs", a)
	}
	if a := testing.AllocsPerRun(3, func() { _ = k.ev.EvalTable(rg, tabs, outs, sc) }); a != 0 {
		t.Errorf("EvalTable: %v allocs", a)
	}
	if a := testing.AllocsPerRun(3, func() { _ = XorInto(k.p, outs[0], outs[1]) }); a != 0 {
		t.Errorf("XorInto: %v allocs", a)
	}
}

// TestTraceGains checks traceGains against the trace applied to every basis
// vector X^i (integer vectors, negacyclic automorphisms applied one step at
// a time), summing ‖·‖² and the constant coefficient's square.
func TestTraceGains(t *testing.T) {
	for _, logN := range []int{3, 6, 9} {
		N := 1 << uint(logN)
		aut := func(v []int64, tt int) []int64 {
			out := make([]int64, N)
			for i, c := range v {
				p := i * tt % (2 * N)
				if p >= N {
					out[p-N] -= c
				} else {
					out[p] += c
				}
			}
			return out
		}
		var wantConst, wantEnergy float64
		for k := 1; k <= logN; k++ {
			for i := 0; i < N; i++ {
				v := make([]int64, N)
				v[i] = 1
				for j := k - 1; j >= 1; j-- {
					w := aut(v, 1<<uint(j)+1)
					for c := range v {
						v[c] += w[c]
					}
				}
				for c, x := range v {
					wantEnergy += float64(x * x)
					if c == 0 && i == 0 {
						wantConst += float64(x * x)
					}
				}
			}
		}
		c, e := traceGains(logN)
		if c != wantConst || e != wantEnergy {
			t.Fatalf("logN %d: traceGains = (%v, %v), direct (%v, %v)", logN, c, e, wantConst, wantEnergy)
		}
	}
}

func TestCost(t *testing.T) {
	p, _ := NewParams(STD128_CBS)
	if c := p.Cost(); c.CBS != 3.1 || c.Table <= 0 {
		t.Fatalf("STD128_CBS cost %+v", c)
	}
	l := STD128_CBS
	l.LWEDim = 2 * l.LWEDim
	q, err := NewParams(l)
	if err != nil {
		t.Fatal(err)
	}
	if c := q.Cost(); c.CBS < 6.1 || c.CBS > 6.3 {
		t.Fatalf("doubled n: estimated CBS cost %v, want 2 x 3.1", c.CBS)
	}
	toy, _ := NewParamsInsecure(ToyCBS)
	if c := toy.Cost(); !(c.CBS > 0 && c.CBS < 0.2) {
		t.Fatalf("ToyCBS estimated cost %+v", c)
	}
}

func TestParamsByName(t *testing.T) {
	for _, n := range Names() {
		p, err := ParamsByName(n, false)
		if err != nil || p.Name() != n {
			t.Fatalf("%s: %v", n, err)
		}
	}
	if _, err := ParamsByName(ToyCBS.Name, false); !errors.Is(err, ErrInsecure) {
		t.Fatalf("toy without allowInsecure: %v", err)
	}
	if _, err := ParamsByName(ToyCBS.Name, true); err != nil {
		t.Fatal(err)
	}
	if _, err := ParamsByName("nope", true); err == nil {
		t.Fatal("unknown name accepted")
	}
}
