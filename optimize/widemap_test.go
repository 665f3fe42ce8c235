package optimize

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// planEquivalent fails t unless p computes c's function: every assignment
// up to 16 inputs, edge cases and random vectors beyond.
func planEquivalent(t testing.TB, c *ir.Circuit, p *ir.WidePlan) {
	t.Helper()
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(c.NumInputBits()), 99))
	for vi, in := range circuittest.Vectors(rng, c.NumInputBits(), 16) {
		want := c.EvalBits(in)
		got, err := p.EvalBits(in)
		if err != nil {
			t.Fatal(err)
		}
		for o := range want {
			if want[o] != got[o] {
				t.Fatalf("%s: vector word %d, output bit %d: plan %016x, circuit %016x", c.Name, vi, o, got[o], want[o])
			}
		}
	}
}

// checkLimits fails t if a consumed form of p exceeds o's limits.
func checkLimits(t testing.TB, p *ir.WidePlan, o WideOptions) {
	t.Helper()
	o, _ = o.withDefaults()
	for i, tb := range p.Tables {
		if len(tb.In) > o.K {
			t.Fatalf("table %d has %d inputs > K = %d", i, len(tb.In), o.K)
		}
		for j, f := range tb.In {
			if len(f.Terms) > o.MaxTerms {
				t.Fatalf("table %d input %d has %d terms > MaxTerms = %d", i, j, len(f.Terms), o.MaxTerms)
			}
			if f.Const {
				t.Fatalf("table %d input %d has Const set (the mapper absorbs it)", i, j)
			}
		}
	}
	if o.MaxOutTerms > 0 {
		for j, f := range p.OutForms {
			if len(f.Terms) > o.MaxOutTerms {
				t.Fatalf("output %d has %d terms > MaxOutTerms = %d", j, len(f.Terms), o.MaxOutTerms)
			}
		}
	}
}

func TestMapWideRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for it := range 60 {
		cfg := circuittest.Config{Inputs: 2 + rng.IntN(16), Gates: 5 + rng.IntN(120), Outputs: 1 + rng.IntN(10)}
		if it%3 == 1 {
			cfg.Window = 8
		}
		c := circuittest.Random(t, rng, cfg)
		for _, o := range []WideOptions{{}, {K: 6, MaxTerms: 2}, {MaxTerms: 3, MaxOutTerms: 2}} {
			p, err := MapWide(c, o)
			if err != nil {
				t.Fatalf("circuit %d %+v: %v", it, o, err)
			}
			planEquivalent(t, c, p)
			checkLimits(t, p, o)
		}
	}
}

// TestMapWideMultiOutput: with MLUT/MOUT groups (the FHEW mapper's output)
// and wide XORs (PARITY) in the input.
func TestMapWideMultiOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	mouts := 0
	defer func() {
		if mouts == 0 {
			t.Error("the multi-output mappings made no MOUT to test")
		}
	}()
	for it := range 20 {
		c := circuittest.Random(t, rng, circuittest.Config{Inputs: 6 + rng.IntN(8), Gates: 60, Window: 6,
			Ops: []ir.Op{ir.OpAnd, ir.OpXor, ir.OpXor, ir.OpMux, ir.OpLUT, ir.OpParity, ir.OpOr}, MaxParityInputs: 20})
		m, err := mapLUTs(c, anyMulti{anyFunction{3}}, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m, err = mergeMulti(m, anyMulti{anyFunction{3}}); err != nil {
			t.Fatal(err)
		}
		mouts += m.Stats().Count[ir.OpMOut]
		for _, cc := range []*ir.Circuit{c, m} {
			p, err := MapWide(cc, WideOptions{MaxTerms: 4})
			if err != nil {
				t.Fatalf("circuit %d: %v", it, err)
			}
			planEquivalent(t, cc, p)
			checkLimits(t, p, WideOptions{MaxTerms: 4})
		}
	}
}

// xorChainCircuit has a running XOR of n inputs, each prefix ANDed with
// an input: forms of up to n terms.
func xorChainCircuit(n int) *ir.Circuit {
	b := ir.NewBuilder("chain")
	x := b.Input("x", n, false)
	acc := x[0]
	var outs []ir.NodeID
	for i := 1; i < n; i++ {
		acc = b.Xor(acc, x[i])
		outs = append(outs, b.And(acc, x[(i+1)%n]))
	}
	outs = append(outs, acc)
	b.Output("y", len(outs), false, outs)
	return b.Circuit()
}

// TestMapWideRefresh: a running XOR read by ANDs gets forms of up to n
// terms; with MaxTerms = 4 refreshes cap them, and the plan stays exact.
func TestMapWideRefresh(t *testing.T) {
	c := xorChainCircuit(40)
	wide, err := MapWide(c, WideOptions{MaxTerms: 64})
	if err != nil {
		t.Fatal(err)
	}
	tight, err := MapWide(c, WideOptions{MaxTerms: 4, MaxOutTerms: 4})
	if err != nil {
		t.Fatal(err)
	}
	planEquivalent(t, c, wide)
	planEquivalent(t, c, tight)
	checkLimits(t, tight, WideOptions{MaxTerms: 4, MaxOutTerms: 4})
	sw, st := wide.Stats(), tight.Stats()
	t.Logf("MaxTerms 64: %v\nMaxTerms 4: %v", sw, st)
	if sw.Refreshes != 0 || st.Refreshes == 0 || st.MaxInTerms > 4 {
		t.Fatalf("refreshes: %d at MaxTerms 64, %d at 4 (max in-terms %d)", sw.Refreshes, st.Refreshes, st.MaxInTerms)
	}
	// A refresh every ~3 links of the chain is enough; far more means the
	// choice of refresh points is broken.
	if st.Refreshes > 40/2 {
		t.Fatalf("%d refreshes for a 40-long chain at MaxTerms 4", st.Refreshes)
	}
}

func TestMapWideOptions(t *testing.T) {
	c := xorChainCircuit(4)
	for _, tc := range []struct {
		o    WideOptions
		want string
	}{
		{WideOptions{K: 9}, "K = 9"},
		{WideOptions{MaxTerms: 1}, "MaxTerms = 1"},
		{WideOptions{MaxOutTerms: 1}, "MaxOutTerms = 1"},
		{WideOptions{CBSCost: -1}, "negative cost"},
		{WideOptions{PackSlots: 100}, "PackSlots = 100"},
		{WideOptions{Cuts: 65}, "Cuts = 65"},
	} {
		if _, err := MapWide(c, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
	// A LUT6 does not fit K = 4.
	b := ir.NewBuilder("lut6")
	x := b.Input("x", 6, false)
	b.Output("y", 1, false, []ir.NodeID{b.LUT(0x8000000000000001, x...)})
	if _, err := MapWide(b.Circuit(), WideOptions{K: 4}); err == nil || !strings.Contains(err.Error(), "no cut of at most K = 4") {
		t.Errorf("LUT6 at K = 4: %v", err)
	}
	bad := &ir.Circuit{Name: "bad", Nodes: []ir.Node{{Op: ir.OpAnd, In: []ir.NodeID{0, 1}}}}
	if _, err := MapWide(bad, WideOptions{}); err == nil {
		t.Error("an invalid circuit mapped")
	}
}

// TestMapWideTrivialOutputs: outputs that are inputs, constants, negations
// and XORs need no table; an AND of x and ¬x folds to a constant table
// output or a free constant, never a table of no inputs.
func TestMapWideTrivialOutputs(t *testing.T) {
	b := ir.NewBuilder("trivial")
	b.SetFolding(false)
	b.SetHashing(false)
	x := b.Input("x", 3, false)
	nx := b.Raw(ir.Node{Op: ir.OpNot, In: []ir.NodeID{x[0]}})
	zero := b.Raw(ir.Node{Op: ir.OpXor, In: []ir.NodeID{x[1], x[1]}})
	outs := []ir.NodeID{x[2], b.Const(true), nx, b.Raw(ir.Node{Op: ir.OpXor, In: []ir.NodeID{x[0], x[1]}}),
		b.Raw(ir.Node{Op: ir.OpAnd, In: []ir.NodeID{x[0], nx}}), b.Raw(ir.Node{Op: ir.OpAnd, In: []ir.NodeID{zero, x[2]}})}
	b.Output("y", len(outs), false, outs)
	c := b.Circuit()
	p, err := MapWide(c, WideOptions{})
	if err != nil {
		t.Fatal(err)
	}
	planEquivalent(t, c, p)
	if s := p.Stats(); s.Tables > 1 {
		t.Fatalf("%v: at most one table (x ∧ ¬x) expected", s)
	}
}

// TestMapWideDeterministic: the same circuit and options give the same
// plan (no map-order dependence), and PlanCost prices it as documented.
func TestMapWideDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	c := circuittest.Random(t, rng, circuittest.Config{Inputs: 12, Gates: 150, Outputs: 8, Window: 10})
	a, err := MapWide(c, WideOptions{MaxTerms: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := MapWide(c, WideOptions{MaxTerms: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs gave different plans")
	}
	o := WideOptions{CBSCost: 2, TableCost: 0.5, OutCost: 0.25, PackSlots: 256}
	got, err := o.PlanCost(a)
	if err != nil {
		t.Fatal(err)
	}
	s := a.Stats()
	want := 2*float64(s.DistinctIn) + 0.25*float64(s.TableOuts)
	for _, tb := range a.Tables {
		per := 256 >> len(tb.In)
		want += 0.5 * float64((len(tb.Out)+per-1)/per)
	}
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("PlanCost = %g, want %g", got, want)
	}
}

// TestMapWideRefreshBottomUp forces the bottom-up refresh pass after one
// greedy round: limits hold, plans stay exact, and a running XOR still
// needs only about one refresh per MaxTerms - 1 links.
func TestMapWideRefreshBottomUp(t *testing.T) {
	defer func(r int) { maxRefreshRounds = r }(maxRefreshRounds)
	maxRefreshRounds = 1
	c := xorChainCircuit(200)
	o := WideOptions{MaxTerms: 6, MaxOutTerms: 6}
	p, err := MapWide(c, o)
	if err != nil {
		t.Fatal(err)
	}
	planEquivalent(t, c, p)
	checkLimits(t, p, o)
	if s := p.Stats(); s.Refreshes > 200/4 {
		t.Fatalf("%v: too many refreshes for a 200-long chain at MaxTerms 6", s)
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for range 20 {
		c := circuittest.Random(t, rng, circuittest.Config{Inputs: 10, Gates: 80, Window: 6, MaxParityInputs: 16})
		o := WideOptions{MaxTerms: 2, MaxOutTerms: 3}
		p, err := MapWide(c, o)
		if err != nil {
			t.Fatal(err)
		}
		planEquivalent(t, c, p)
		checkLimits(t, p, o)
	}
}
