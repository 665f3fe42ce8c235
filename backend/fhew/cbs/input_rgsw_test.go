package cbs

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	mrand "math/rand/v2"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// inputRGSWs encrypts bits as input RGSWs under k.
func inputRGSWs(t testing.TB, k *testKeys, bits []bool) []*InputRGSW {
	t.Helper()
	c, err := k.enc.EncryptInputRGSW(bits)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestInputFormRGSWRows builds RGSW(x_1 ⊕ … ⊕ x_t) from input RGSWs for
// every bit combination of 1-3 terms and random ones of 4-6 terms, on
// both toy sets (ℓ_c = 2 and 3), and decrypts every row against
// (⊕x)·g_j and (⊕x)·g_j·z.
func TestInputFormRGSWRows(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(41, 42))
	for _, lit := range []ParamsLiteral{ToyCBS, ToyCBS3} {
		t.Run(lit.Name, func(t *testing.T) {
			k := keysFor(t, lit)
			sc := NewScratch(k.p)
			out := k.ev.NewRGSW()
			check := func(bits []bool) {
				par := 0
				for _, b := range bits {
					if b {
						par ^= 1
					}
				}
				if err := k.ev.InputFormRGSW(inputRGSWs(t, k, bits), out, sc); err != nil {
					t.Fatal(err)
				}
				worst := checkRGSW(t, k, out, par)
				// 16σ of the model's rows (2^-31 of Q at 6 terms).
				if lim := 16 * math.Sqrt(k.p.InputFormRowVar(len(bits))); worst > lim {
					t.Fatalf("%v: row error 2^%.1f above 16σ = 2^%.1f", bits, log2(worst), log2(lim))
				}
			}
			for terms := 1; terms <= 3; terms++ {
				for x := 0; x < 1<<uint(terms); x++ {
					bits := make([]bool, terms)
					for j := range bits {
						bits[j] = x>>uint(j)&1 == 1
					}
					check(bits)
				}
			}
			for terms := 4; terms <= 6; terms++ {
				bits := make([]bool, terms)
				for j := range bits {
					bits[j] = rng.IntN(2) == 1
				}
				check(bits)
			}
		})
	}
}

// inputPlan is a 3-input plan whose first table reads input forms of 1, 2
// and 3 terms (one with a constant) and a repeated one, the second mixes an
// input form shared with the first and a form with a table output, and
// whose outputs read tables and inputs.
func inputPlan(rng *mrand.Rand) *ir.WidePlan {
	tab := func(k int) []uint64 {
		tt := []uint64{rng.Uint64()}
		if k < 6 {
			tt[0] &= 1<<(1<<k) - 1
		}
		return tt
	}
	p := &ir.WidePlan{Name: "inputs", Inputs: []ir.Bus{{Name: "x", Width: 3}}, NumInputs: 3,
		Outputs: []ir.Bus{{Name: "y", Width: 4}}}
	t1 := ir.WideTable{In: []ir.LinearForm{{Terms: []int32{0}}, {Terms: []int32{0, 1}}, {Terms: []int32{0, 1, 2}, Const: true},
		{Terms: []int32{1, 2}}, {Terms: []int32{0}, Const: true}}, Out: [][]uint64{tab(5), tab(5)}}
	t2 := ir.WideTable{In: []ir.LinearForm{{Terms: []int32{2}}, {Terms: []int32{0, 3}}, {Terms: []int32{0, 1, 2}}},
		Out: [][]uint64{tab(3), tab(3)}}
	t3 := ir.WideTable{In: []ir.LinearForm{{Terms: []int32{1, 5}, Const: true}, {Terms: []int32{0, 2}}}, Out: [][]uint64{tab(2)}}
	p.Tables = []ir.WideTable{t1, t2, t3}
	p.OutForms = []ir.LinearForm{{Terms: []int32{5}}, {Terms: []int32{1, 4}}, {Terms: []int32{0, 2}, Const: true}, {Terms: []int32{7, 6}}}
	slicesSortTerms(p)
	return p
}

// slicesSortTerms sorts every form's terms (the plan invariant).
func slicesSortTerms(p *ir.WidePlan) {
	sortForm := func(f *ir.LinearForm) {
		for i := 1; i < len(f.Terms); i++ {
			for j := i; j > 0 && f.Terms[j] < f.Terms[j-1]; j-- {
				f.Terms[j], f.Terms[j-1] = f.Terms[j-1], f.Terms[j]
			}
		}
	}
	for i := range p.Tables {
		for j := range p.Tables[i].In {
			sortForm(&p.Tables[i].In[j])
		}
	}
	for i := range p.OutForms {
		sortForm(&p.OutForms[i])
	}
}

// evalWithInputs runs plan on bits encrypted under k, with input RGSWs
// when rgsw is set, and returns the decrypted outputs and the number of
// circuit bootstraps run (Progress).
func evalWithInputs(t *testing.T, k *testKeys, plan *ir.WidePlan, bits []bool, rgsw bool, threads int) ([]bool, int, int) {
	t.Helper()
	in, err := k.enc.EncryptBits(bits)
	if err != nil {
		t.Fatal(err)
	}
	cbsDone, total := 0, -1
	opt := EvalOptions{Threads: threads, Batch: 3, Progress: func(done, tot int) { cbsDone, total = done, tot }}
	if rgsw {
		opt.InputRGSW = inputRGSWs(t, k, bits)
	}
	out, err := k.ev.EvalPlan(context.Background(), plan, in, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.sk.DecryptBits(out)
	if err != nil {
		t.Fatal(err)
	}
	return got, cbsDone, total
}

// TestEvalPlanInputRGSW runs inputPlan on all 8 inputs with input RGSWs
// (and 2 without), and random plans (whose first tables read only inputs)
// with and without, against plan.Eval; with input RGSWs only the forms
// reading a table output are bootstrapped.
func TestEvalPlanInputRGSW(t *testing.T) {
	k := keysFor(t, ToyCBS)
	rng := mrand.New(mrand.NewPCG(47, 48))
	plan := inputPlan(rng)
	if err := plan.Verify(); err != nil {
		t.Fatal(err)
	}
	for x := 0; x < 8; x++ {
		bits := []bool{x&1 == 1, x&2 == 2, x&4 == 4}
		want, err := plan.Eval(bits)
		if err != nil {
			t.Fatal(err)
		}
		modes := []bool{true}
		if x < 2 {
			modes = append(modes, false)
		}
		for _, rgsw := range modes {
			got, done, total := evalWithInputs(t, k, plan, bits, rgsw, 1+x%2)
			wantCBS := plan.Stats().DistinctIn
			if rgsw {
				wantCBS = 2 // {0, 3} and {1, 5}
			}
			if done != wantCBS || total != wantCBS {
				t.Fatalf("x = %d, input RGSWs %v: %d of %d bootstraps, want %d", x, rgsw, done, total, wantCBS)
			}
			for o := range want {
				if got[o] != want[o] {
					t.Fatalf("x = %d, input RGSWs %v, output %d: encrypted %v, plaintext %v", x, rgsw, o, got[o], want[o])
				}
			}
		}
	}
	for it := 0; it < 12; it++ {
		p := randomPlan(rng, 2+rng.IntN(6), 1+rng.IntN(5), 5)
		if err := p.Verify(); err != nil {
			t.Fatal(err)
		}
		bits := make([]bool, p.NumInputs)
		for i := range bits {
			bits[i] = rng.IntN(2) == 1
		}
		want, err := p.Eval(bits)
		if err != nil {
			t.Fatal(err)
		}
		for _, rgsw := range []bool{it%3 == 0, true} {
			got, _, _ := evalWithInputs(t, k, p, bits, rgsw, 1+it%2)
			for o := range want {
				if got[o] != want[o] {
					t.Fatalf("plan %d (%v), input RGSWs %v, output %d: encrypted %v, plaintext %v", it, p.Stats(), rgsw, o, got[o], want[o])
				}
			}
		}
	}
}

// TestEvalPlanInputRGSWTermLimit: an input form of more terms than
// InputFormMaxTerms is bootstrapped, a shorter one is not.
func TestEvalPlanInputRGSWTermLimit(t *testing.T) {
	k := keysFor(t, ToyCBS)
	mt := k.p.InputFormMaxTerms()
	long := ir.LinearForm{}
	for s := int32(0); s <= int32(mt); s++ {
		long.Terms = append(long.Terms, s)
	}
	n := mt + 1
	plan := &ir.WidePlan{Name: "long", Inputs: []ir.Bus{{Name: "x", Width: n}}, NumInputs: n,
		Outputs: []ir.Bus{{Name: "y", Width: 1}}, OutForms: []ir.LinearForm{{Terms: []int32{int32(n)}}},
		Tables: []ir.WideTable{{In: []ir.LinearForm{long, {Terms: long.Terms[:mt]}}, Out: [][]uint64{{0b0110}}}}}
	if err := plan.Verify(); err != nil {
		t.Fatal(err)
	}
	rng := mrand.New(mrand.NewPCG(53, 54))
	bits := make([]bool, n)
	for i := range bits {
		bits[i] = rng.IntN(2) == 1
	}
	want, _ := plan.Eval(bits)
	got, done, total := evalWithInputs(t, k, plan, bits, true, 2)
	if done != 1 || total != 1 || got[0] != want[0] {
		t.Fatalf("%d-term limit: %d of %d bootstraps (want 1 of 1), output %v want %v", mt, done, total, got[0], want[0])
	}
}

// TestInputRGSWErrors: wrong counts, nil entries, another set's or a
// malformed ciphertext, bad buffers: errors, not panics.
func TestInputRGSWErrors(t *testing.T) {
	k := keysFor(t, ToyCBS)
	k3 := keysFor(t, ToyCBS3)
	rng := mrand.New(mrand.NewPCG(49, 50))
	plan := inputPlan(rng)
	bits := []bool{true, false, true}
	in, _ := k.enc.EncryptBits(bits)
	good := inputRGSWs(t, k, bits)
	other := inputRGSWs(t, k3, bits)
	ctx := context.Background()
	bad := map[string][]*InputRGSW{
		"3 input bits, got 2":     good[:2],
		"got 0":                   {},
		"nil input RGSW":          {good[0], nil, good[2]},
		`parameter set "ToyCBS3"`: {good[0], good[1], other[2]},
		"malformed":               {good[0], {lit: good[1].lit, rows: &RGSW{}}, good[2]},
		"nil input RGSW ":         {good[0], {lit: good[1].lit}, good[2]},
	}
	for want, rg := range bad {
		_, err := k.ev.EvalPlan(ctx, plan, in, EvalOptions{InputRGSW: rg})
		if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(want)) {
			t.Errorf("InputRGSW %q: error %v", want, err)
		}
	}
	sc := NewScratch(k.p)
	out := k.ev.NewRGSW()
	if err := k.ev.InputFormRGSW(nil, out, sc); err == nil {
		t.Error("no terms accepted")
	}
	if err := k.ev.InputFormRGSW([]*InputRGSW{good[0], nil}, out, sc); err == nil {
		t.Error("nil term accepted")
	}
	if err := k.ev.InputFormRGSW(other[:1], out, sc); err == nil {
		t.Error("another set's input RGSW accepted")
	}
	if err := k.ev.InputFormRGSW(good, k3.ev.NewRGSW(), sc); err == nil {
		t.Error("another set's output accepted")
	}
	if err := k.ev.InputFormRGSW(good, out, NewScratch(k3.p)); err == nil {
		t.Error("another set's scratch accepted")
	}
	if err := k.ev.InputFormRGSW(good, out, sc); err != nil {
		t.Fatal(err)
	}
	var nilC *InputRGSW
	if nilC.SizeBytes() != 0 || good[0].SizeBytes() != 6*2*2*4*k.p.ringN {
		t.Errorf("SizeBytes %d", good[0].SizeBytes())
	}
}

func TestInputFormZeroAllocs(t *testing.T) {
	k := keysFor(t, ToyCBS)
	sc := NewScratch(k.p)
	out := k.ev.NewRGSW()
	terms := inputRGSWs(t, k, []bool{true, false, true})
	if a := testing.AllocsPerRun(3, func() { _ = k.ev.InputFormRGSW(terms, out, sc) }); a != 0 {
		t.Errorf("InputFormRGSW: %v allocs", a)
	}
}

// TestInputRGSWEncoding round-trips input RGSWs (bit-identical rows, the A
// parts regenerated from the seed), builds a form from decoded ones, and
// refuses bad encodings.
func TestInputRGSWEncoding(t *testing.T) {
	k := keysFor(t, ToyCBS)
	bits := []bool{true, false, true}
	cs := inputRGSWs(t, k, bits)
	if cs[0].seed == cs[1].seed {
		t.Fatal("two ciphertexts share a seed")
	}
	size := InputRGSWSize(k.p)
	if want := 32 + cs[0].SizeBytes()/2; size != want {
		t.Fatalf("InputRGSWSize %d, want %d", size, want)
	}
	dec := make([]*InputRGSW, len(cs))
	var enc []byte
	for i, c := range cs {
		b, err := AppendInputRGSW(nil, c)
		if err != nil || len(b) != size {
			t.Fatalf("encoding of %d bytes (%v), want %d", len(b), err, size)
		}
		enc = b
		if dec[i], err = DecodeInputRGSW(k.p, b); err != nil {
			t.Fatal(err)
		}
		for j := range c.rows.B {
			for _, pr := range [][2][2][]uint32{{c.rows.B[j], dec[i].rows.B[j]}, {c.rows.A[j], dec[i].rows.A[j]}} {
				for res := 0; res < 2; res++ {
					for x := range pr[0][res] {
						if pr[0][res][x] != pr[1][res][x] {
							t.Fatalf("ciphertext %d row %d differs after decoding", i, j)
						}
					}
				}
			}
		}
	}
	out := k.ev.NewRGSW()
	if err := k.ev.InputFormRGSW(dec, out, NewScratch(k.p)); err != nil {
		t.Fatal(err)
	}
	if worst := checkRGSW(t, k, out, 0); worst > 16*math.Sqrt(k.p.InputFormRowVar(3)) {
		t.Fatalf("form of decoded inputs: row error 2^%.1f", log2(worst))
	}
	// Another seed regenerates other A parts: the rows no longer decrypt.
	other := append([]byte(nil), enc...)
	other[0] ^= 1
	c, err := DecodeInputRGSW(k.p, other)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.ev.InputFormRGSW([]*InputRGSW{c}, out, NewScratch(k.p)); err != nil {
		t.Fatal(err)
	}
	if worst := checkRGSW(t, k, out, 1); worst < float64(k.p.q)/16 {
		t.Fatal("rows decrypt with another seed: the A parts do not come from the seed")
	}
	big := append([]byte(nil), enc...)
	binary.LittleEndian.PutUint32(big[32+4*7:], k.p.ring.Q0)
	var zero Params
	for name, f := range map[string]func() error{
		"short":     func() error { _, err := DecodeInputRGSW(k.p, enc[:size-1]); return err },
		"long":      func() error { _, err := DecodeInputRGSW(k.p, append(enc, 0)); return err },
		"residue":   func() error { _, err := DecodeInputRGSW(k.p, big); return err },
		"other set": func() error { _, err := DecodeInputRGSW(keysFor(t, ToyCBS3).p, enc[:size-8]); return err },
	} {
		if err := f(); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
	if _, err := DecodeInputRGSW(zero, enc); err == nil {
		t.Error("zero Params accepted")
	}
	if _, err := AppendInputRGSW(nil, nil); err == nil {
		t.Error("nil input RGSW encoded")
	}
}
