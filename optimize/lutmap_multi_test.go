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
	}
}
