package ir

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// form builds a LinearForm from signal ids (sorted by the caller).
func form(c bool, ts ...int32) LinearForm { return LinearForm{Terms: ts, Const: c} }

// fullAdderPlan: inputs a, b, cin (3 bits); sum is free (a^b^cin), carry is
// one 3-input majority table.
func fullAdderPlan() *WidePlan {
	return &WidePlan{
		Name:      "fa",
		Inputs:    []Bus{{Name: "x", Width: 3}},
		NumInputs: 3,
		Tables:    []WideTable{{In: []LinearForm{form(false, 0), form(false, 1), form(false, 2)}, Out: [][]uint64{{0b11101000}}}},
		Outputs:   []Bus{{Name: "s", Width: 1}, {Name: "c", Width: 1}},
		OutForms:  []LinearForm{form(false, 0, 1, 2), form(false, 3)},
	}
}

func TestWidePlanFullAdder(t *testing.T) {
	p := fullAdderPlan()
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	for x := range 8 {
		in := []bool{x&1 != 0, x&2 != 0, x&4 != 0}
		out, err := p.Eval(in)
		if err != nil {
			t.Fatal(err)
		}
		n := x&1 + x>>1&1 + x>>2&1
		if out[0] != (n&1 != 0) || out[1] != (n >= 2) {
			t.Fatalf("x=%03b: got sum=%v carry=%v, want %d", x, out[0], out[1], n)
		}
	}
	vals, err := p.EvalValues(Values{"x": {big.NewInt(7)}})
	if err != nil {
		t.Fatal(err)
	}
	if vals["s"][0].Int64() != 1 || vals["c"][0].Int64() != 1 {
		t.Fatalf("EvalValues(7) = %v, want s=1 c=1", vals)
	}
	s := p.Stats()
	want := WideStats{Tables: 1, CBS: 3, DistinctIn: 3, TableOuts: 1, MaxK: 3, MaxInTerms: 1, MaxOutTerm: 3, Signals: 4}
	if s != want {
		t.Fatalf("Stats = %v, want %v", s, want)
	}
}

// slowEval is the obvious reference: one vector, signal by signal, entry by
// bit arithmetic on the table words.
func slowEval(p *WidePlan, in []bool) []bool {
	sig := append([]bool(nil), in...)
	xor := func(f LinearForm) bool {
		v := f.Const
		for _, t := range f.Terms {
			v = v != sig[t]
		}
		return v
	}
	for _, t := range p.Tables {
		x := 0
		for j, f := range t.In {
			if xor(f) {
				x += 1 << j
			}
		}
		for _, tt := range t.Out {
			sig = append(sig, tt[x/64]&(1<<(x%64)) != 0)
		}
	}
	var out []bool
	for _, f := range p.OutForms {
		out = append(out, xor(f))
	}
	return out
}

// randomPlan draws a valid plan with tables of 1..8 inputs.
func randomPlan(rng *rand.Rand, nIn, nTables int) *WidePlan {
	p := &WidePlan{Name: "rand", Inputs: []Bus{{Name: "x", Width: nIn}}, NumInputs: nIn}
	signals := nIn
	randForm := func(minTerms int) LinearForm {
		n := minTerms + rng.IntN(4)
		seen := map[int32]bool{}
		var f LinearForm
		for range n {
			seen[int32(rng.IntN(signals))] = true
		}
		for s := range int32(signals) {
			if seen[s] {
				f.Terms = append(f.Terms, s)
			}
		}
		f.Const = rng.IntN(2) == 0
		return f
	}
	for range nTables {
		k := 1 + rng.IntN(MaxWideInputs)
		var t WideTable
		for range k {
			t.In = append(t.In, randForm(1))
		}
		for range 1 + rng.IntN(3) {
			tt := make([]uint64, TableWords(k))
			for w := range tt {
				tt[w] = rng.Uint64()
			}
			if k < 6 {
				tt[0] &= 1<<(1<<k) - 1
			}
			t.Out = append(t.Out, tt)
		}
		signals += len(t.Out)
		p.Tables = append(p.Tables, t)
	}
	nOut := 1 + rng.IntN(10)
	p.Outputs = []Bus{{Name: "y", Width: nOut}}
	for range nOut {
		p.OutForms = append(p.OutForms, randForm(0))
	}
	return p
}

func TestWidePlanRandomAgainstSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 40 {
		p := randomPlan(rng, 1+rng.IntN(12), 1+rng.IntN(10))
		if err := p.Verify(); err != nil {
			t.Fatalf("plan %d: %v", it, err)
		}
		in := make([]uint64, p.NumInputs)
		for i := range in {
			in[i] = rng.Uint64()
		}
		got, err := p.EvalBits(in)
		if err != nil {
			t.Fatal(err)
		}
		for lane := range 64 {
			bits := make([]bool, p.NumInputs)
			for i := range bits {
				bits[i] = in[i]>>lane&1 != 0
			}
			want := slowEval(p, bits)
			one, err := p.Eval(bits)
			if err != nil {
				t.Fatal(err)
			}
			for o := range want {
				if got[o]>>lane&1 != 0 != want[o] || one[o] != want[o] {
					t.Fatalf("plan %d lane %d output %d: EvalBits %v, Eval %v, reference %v",
						it, lane, o, got[o]>>lane&1, one[o], want[o])
				}
			}
		}
	}
}

func TestWidePlanVerifyRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(p *WidePlan)
		want string
	}{
		{"NumInputs", func(p *WidePlan) { p.NumInputs = 4 }, "input buses have 3 bits, NumInputs is 4"},
		{"OutForms", func(p *WidePlan) { p.OutForms = p.OutForms[:1] }, "output buses have 2 bits, OutForms has 1"},
		{"NoInputs", func(p *WidePlan) { p.Tables[0].In = nil }, "table 0 has 0 inputs, want 1..8"},
		{"TooWide", func(p *WidePlan) {
			p.Tables[0].In = make([]LinearForm, 9)
		}, "table 0 has 9 inputs"},
		{"NoOutputs", func(p *WidePlan) { p.Tables[0].Out = nil }, "table 0 has no outputs"},
		{"ConstInput", func(p *WidePlan) { p.Tables[0].In[1] = form(true) }, "table 0 input 1 is a constant"},
		{"Forward", func(p *WidePlan) { p.Tables[0].In[1] = form(false, 3) }, "term 0 is signal 3, not one of the 3 signals"},
		{"Negative", func(p *WidePlan) { p.Tables[0].In[1] = form(false, -1) }, "signal -1"},
		{"Unsorted", func(p *WidePlan) { p.Tables[0].In[1] = form(false, 2, 1) }, "not sorted and distinct at term 1 (1 after 2)"},
		{"Duplicate", func(p *WidePlan) { p.OutForms[0] = form(false, 1, 1) }, "output bit 0: terms not sorted"},
		{"OutRange", func(p *WidePlan) { p.OutForms[1] = form(false, 4) }, "output bit 1: term 0 is signal 4"},
		{"Words", func(p *WidePlan) { p.Tables[0].Out[0] = []uint64{1, 2} }, "has 2 words, a 3-input table needs 1"},
		{"HighBits", func(p *WidePlan) { p.Tables[0].Out[0] = []uint64{1 << 8} }, "bits beyond entry 8"},
		{"BusWidth", func(p *WidePlan) { p.Inputs[0].Width = 0 }, `input bus "x" has width 0`},
		{"BusDims", func(p *WidePlan) { p.Outputs[0].Dims = []int{-1} }, `output bus "s" has dimension -1`},
		{"BusHuge", func(p *WidePlan) { p.Inputs[0].Dims = []int{1 << 20, 1 << 20} }, "more than"},
		{"BusName", func(p *WidePlan) { p.Outputs[1].Name = "s" }, `output bus "s" appears twice`},
		{"BusNoName", func(p *WidePlan) { p.Inputs[0].Name = "" }, "input bus 0 has no name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := fullAdderPlan()
			tc.edit(p)
			err := p.Verify()
			if err == nil || !errors.Is(err, ErrInvalidPlan) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify = %v, want an ErrInvalidPlan containing %q", err, tc.want)
			}
			if _, err := p.Eval(make([]bool, p.NumInputs)); err == nil {
				t.Fatal("Eval accepted an invalid plan")
			}
		})
	}
	var nilPlan *WidePlan
	if err := nilPlan.Verify(); err == nil {
		t.Fatal("nil plan verified")
	}
	if _, err := nilPlan.Eval(nil); err == nil {
		t.Fatal("nil plan evaluated")
	}
	if _, err := fullAdderPlan().Eval(make([]bool, 2)); err == nil || !strings.Contains(err.Error(), "has 3 input bits, got 2") {
		t.Fatalf("Eval with 2 inputs: %v", err)
	}
}

// TestWidePlanMutationsNeverPanic damages valid plans at random; Verify
// must return (not panic) and a plan it accepts must evaluate.
func TestWidePlanMutationsNeverPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		p := randomPlan(rng, 1+rng.IntN(6), 1+rng.IntN(4))
		switch rng.IntN(6) {
		case 0:
			ti := rng.IntN(len(p.Tables))
			p.Tables[ti].In = append(p.Tables[ti].In, form(false, int32(rng.IntN(20)-5)))
		case 1:
			ti := rng.IntN(len(p.Tables))
			p.Tables[ti].Out[0] = p.Tables[ti].Out[0][:rng.IntN(len(p.Tables[ti].Out[0])+1)]
		case 2:
			p.OutForms = append(p.OutForms, form(false, int32(rng.IntN(40))))
		case 3:
			p.NumInputs += rng.IntN(3) - 1
		case 4:
			ti := rng.IntN(len(p.Tables))
			p.Tables[ti].In[0].Terms = append(p.Tables[ti].In[0].Terms, int32(rng.IntN(30)-3))
		case 5:
			p.Tables = append(p.Tables, WideTable{In: []LinearForm{form(false, int32(rng.IntN(40)))}, Out: [][]uint64{{2}}})
		}
		if p.Verify() == nil {
			if _, err := p.Eval(make([]bool, p.NumInputs)); err != nil {
				t.Fatalf("verified plan fails Eval: %v", err)
			}
		}
	}
}

func TestWidePlanStatsRefresh(t *testing.T) {
	p := &WidePlan{
		Name: "r", Inputs: []Bus{{Name: "x", Width: 2}}, NumInputs: 2,
		Tables: []WideTable{
			{In: []LinearForm{form(false, 0, 1)}, Out: [][]uint64{{0b10}}}, // refresh of a^b -> signal 2
			{In: []LinearForm{form(false, 0)}, Out: [][]uint64{{0b01}}},    // negated refresh -> 3
		},
		Outputs:  []Bus{{Name: "y", Width: 2}},
		OutForms: []LinearForm{form(true, 2), form(false, 3)},
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	p.Tables = append(p.Tables, WideTable{In: []LinearForm{form(true, 0), form(false, 1)}, Out: [][]uint64{{0b1010}}}) // ¬a: same form as table 1's input
	p.Outputs[0].Width = 3
	p.OutForms = append(p.OutForms, form(false, 4))
	if s := p.Stats(); s.Refreshes != 2 || s.CBS != 4 || s.DistinctIn != 3 || s.MaxInTerms != 2 {
		t.Fatalf("Stats = %v, want 2 refreshes, 4 CBS, 3 distinct, 2 max in-terms", s)
	}
	if b := p.SignalBase(); b[0] != 2 || b[1] != 3 {
		t.Fatalf("SignalBase = %v", b)
	}
	for x := range 4 {
		a, b := x&1 != 0, x&2 != 0
		out, err := p.Eval([]bool{a, b})
		if err != nil {
			t.Fatal(err)
		}
		if out[0] != !(a != b) || out[1] != !a || out[2] != !a {
			t.Fatalf("x=%02b: %v", x, out)
		}
	}
	if got := form(true, 1, 4).String(); got != "s1^s4^1" {
		t.Fatalf("String = %q", got)
	}
}
