package optimize

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// countSum is a multi-output target like FHEW at P = 8 with unit weights:
// one bootstrap evaluates any functions of the input count when the count
// stays below 4, i.e. symmetric functions of up to three inputs. Its
// per-node failure is -Inf unless noisyReaders is set: then every node
// reading an MLUT or MOUT output is over its bound (to exercise the undo).
type countSum struct {
	symmetricOnly
	noisyReaders bool
}

func (countSum) MaxMultiLUTInputs() int { return 3 }

func (s countSum) CanEvalMultiLUT(tables []uint64, k int) bool {
	if k > 3 {
		return false
	}
	for _, t := range tables {
		if !s.symmetricOnly.CanEvalLUT(t, k) {
			return false
		}
	}
	return true
}

func (s countSum) NodeFailureLog2(c *ir.Circuit) ([]float64, error) {
	out := make([]float64, len(c.Nodes))
	for i := range c.Nodes {
		out[i] = math.Inf(-1)
		if !s.noisyReaders || !c.Nodes[i].Op.IsBootstrapped() {
			continue
		}
		for _, f := range c.Nodes[i].In {
			for c.Nodes[f].Op == ir.OpNot {
				f = c.Nodes[f].In[0]
			}
			if op := c.Nodes[f].Op; op == ir.OpMLUT || op == ir.OpMOut {
				out[i] = 0
			}
		}
	}
	return out, nil
}

func (countSum) NodeFailureBound(ir.Op) float64 { return -40 }

// fullAdderChain is an n-bit ripple-carry adder from XOR/AND/OR gates.
func fullAdderChain(t *testing.T, n int) *ir.Circuit {
	b := ir.NewBuilder("add")
	x := b.Input("a", n, false)
	y := b.Input("b", n, false)
	var sum []ir.NodeID
	carry := b.Const(false)
	for i := 0; i < n; i++ {
		p := b.Xor(x[i], y[i])
		sum = append(sum, b.Xor(p, carry))
		carry = b.Or(b.And(x[i], y[i]), b.And(p, carry))
	}
	b.Output("s", n+1, false, append(sum, carry))
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	c, err = Default().Run(c)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMultiLUTMergeAdder: every full adder's sum and carry (symmetric in
// a, b, c) become one MLUT and one MOUT, so the adder costs one bootstrap
// per bit, and the result is equivalent (exhaustive: 16 inputs).
func TestMultiLUTMergeAdder(t *testing.T) {
	c := fullAdderChain(t, 8)
	plain, err := LUTMap(symmetricOnly{3}, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	d, err := LUTMap(countSum{symmetricOnly: symmetricOnly{3}}, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	if got, was := bootstraps(d), bootstraps(plain); got > 9 || got >= was {
		t.Errorf("8-bit adder: %d bootstraps with multi-output LUTs, %d without; want at most 9", got, was)
	}
	if d.Stats().Count[ir.OpMOut] == 0 {
		t.Error("no MOUT emitted")
	}
}

// TestMultiLUTMergeUndo: when every reader of a grouped output would be
// over its failure bound, the only groups left are those whose outputs
// feed no bootstrap (here: the adder's top carry and sum bits).
func TestMultiLUTMergeUndo(t *testing.T) {
	c := fullAdderChain(t, 8)
	tg := countSum{symmetricOnly: symmetricOnly{3}, noisyReaders: true}
	d, err := LUTMap(tg, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	fail, _ := tg.NodeFailureLog2(d)
	for i, f := range fail {
		if f > -40 {
			t.Fatalf("node %d (%v) over its failure bound after the undo", i, d.Nodes[i].Op)
		}
	}
}

// TestMultiLUTMergeRandom: on random circuits the merged mapping is
// equivalent to the input (exhaustive up to 16 inputs, random vectors
// beyond), every MLUT's tables pass the target, and it never costs more
// bootstraps than the mapping without merging.
func TestMultiLUTMergeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	tg := countSum{symmetricOnly: symmetricOnly{3}}
	for iter := 0; iter < 60; iter++ {
		c := randomCircuitNoParity(t, rng, 2+rng.IntN(20), 30+rng.IntN(120))
		c, err := Default().Run(c)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := LUTMap(tg.symmetricOnly, 6).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		d, err := LUTMap(tg, 6).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
		for i := range d.Nodes {
			n := &d.Nodes[i]
			if n.Op == ir.OpMLUT && !tg.CanEvalMultiLUT(ir.MLUTTables(n.Table, len(n.In)), len(n.In)) {
				t.Fatalf("node %d: MLUT %#x not evaluable by the target", i, n.Table)
			}
		}
		if bootstraps(d) > bootstraps(plain) {
			t.Fatalf("merging raised bootstraps from %d to %d", bootstraps(plain), bootstraps(d))
		}
		// The P = 4 model (MUX pairs rewritten where they occur).
		e, err := LUTMap(p4Sum{}, 3).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, e)
	}
}

// p4Sum is FHEW at P = 4 in miniature for the compare-swap rewrite: one
// bootstrap evaluates h(Σ w_i·x_i mod 4) with h(v + 2) = ¬h(v), for
// weights in {0, ±1, 2}, alone or several tables at once.
type p4Sum struct{}

func (p4Sum) MaxLUTInputs() int      { return 3 }
func (p4Sum) MaxMultiLUTInputs() int { return 3 }
func (p4Sum) CanEvalLUT(t uint64, k int) bool {
	return k <= 3 && p4Weights([]uint64{t}, k)
}
func (p4Sum) CanEvalMultiLUT(ts []uint64, k int) bool { return k <= 3 && p4Weights(ts, k) }
func (p4Sum) NodeFailureLog2(c *ir.Circuit) ([]float64, error) {
	out := make([]float64, len(c.Nodes))
	for i := range out {
		out[i] = math.Inf(-1)
	}
	return out, nil
}
func (p4Sum) NodeFailureBound(ir.Op) float64 { return -40 }
func (p4Sum) GateBootstraps(op ir.Op) int {
	switch op {
	case ir.OpNot, ir.OpMOut:
		return 0
	case ir.OpMux:
		return 2
	}
	return 1
}

// p4Weights reports whether some weight vector serves every table.
func p4Weights(ts []uint64, k int) bool {
	choices := []int{0, 1, -1, 2}
	w := make([]int, k)
	var try func(j int) bool
	try = func(j int) bool {
		if j == k {
			for _, t := range ts {
				var set, val [4]bool
				for x := 0; x < 1<<uint(k); x++ {
					v := 0
					for i := 0; i < k; i++ {
						v += w[i] * (x >> uint(i) & 1)
					}
					v = (v%4 + 4) % 4
					bit := t>>uint(x)&1 == 1
					for _, vv := range []int{v, (v + 2) % 4} {
						if set[vv] && val[vv] != bit {
							return false
						}
						set[vv], val[vv] = true, bit
						bit = !bit
					}
				}
			}
			return true
		}
		for _, c := range choices {
			w[j] = c
			if try(j + 1) {
				return true
			}
		}
		return false
	}
	return try(0)
}

// TestMuxPairRewrite: a compare-swap of two 4-bit words (MUX(s, a, b) and
// MUX(s, b, a) per bit) maps to MAJ plus one multi-output bootstrap per
// bit instead of two 2-bootstrap MUXes, and stays equivalent.
func TestMuxPairRewrite(t *testing.T) {
	b := ir.NewBuilder("swap")
	x := b.Input("x", 4, false)
	y := b.Input("y", 4, false)
	s := b.Input("s", 1, false)[0]
	var lo, hi []ir.NodeID
	for i := 0; i < 4; i++ {
		lo = append(lo, b.Mux(s, x[i], y[i]))
		hi = append(hi, b.Mux(s, y[i], x[i]))
	}
	b.Output("lo", 4, false, lo)
	b.Output("hi", 4, false, hi)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !muxPairsUsable(p4Sum{}) {
		t.Fatal("the P = 4 model cannot evaluate the rewrite")
	}
	d, err := LUTMap(p4Sum{}, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	if got := coverCost(p4Sum{})(d); got != 8 {
		t.Errorf("4-bit compare-swap: %d bootstraps, want 8 (MAJ + MLUT per bit; 16 with MUXes)", got)
	}
}

// anyMulti evaluates any functions of up to three inputs, alone or together.
type anyMulti struct{ anyFunction }

func (anyMulti) MaxMultiLUTInputs() int                 { return 3 }
func (anyMulti) CanEvalMultiLUT(_ []uint64, k int) bool { return k <= 3 }
func (anyMulti) NodeFailureLog2(c *ir.Circuit) ([]float64, error) {
	return countSum{}.NodeFailureLog2(c)
}
func (anyMulti) NodeFailureBound(ir.Op) float64 { return -40 }

// TestMultiLUTMergeCycle builds two groups that each pass the member
// reachability check but close a cycle through each other (x feeds p, q
// feeds y, groups {x, y} and {q, p}); the emitter must find it and split
// them, leaving an equivalent, valid circuit.
func TestMultiLUTMergeCycle(t *testing.T) {
	b := ir.NewBuilder("cycle")
	in := b.Input("i", 4, false)
	x := b.And(in[0], in[1])
	q := b.And(in[2], in[3])
	y := b.And(q, in[1])
	p := b.And(x, in[2])
	b.Output("o", 4, false, []ir.NodeID{x, q, y, p})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	groups := findGroups(c, anyMulti{anyFunction{3}})
	if len(groups) != 2 {
		t.Fatalf("want the two crossing groups, got %d", len(groups))
	}
	if _, _, cyclic, err := emitGroups(c, groups); err != nil || len(cyclic) == 0 {
		t.Fatalf("emitGroups did not report the cycle (err %v)", err)
	}
	d, err := mergeMulti(c, anyMulti{anyFunction{3}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Verify(d); err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
}
