package optimize

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// anyFunction accepts every function of up to k inputs.
type anyFunction struct{ k int }

func (a anyFunction) MaxLUTInputs() int               { return a.k }
func (a anyFunction) CanEvalLUT(_ uint64, k int) bool { return k <= a.k }

// symmetricOnly accepts functions of the input count only (what a bootstrap
// on x1+...+xk with unit weights can do).
type symmetricOnly struct{ k int }

func (s symmetricOnly) MaxLUTInputs() int { return s.k }
func (s symmetricOnly) CanEvalLUT(t uint64, k int) bool {
	if k > s.k {
		return false
	}
	val := map[int]uint64{}
	for i := 0; i < 1<<k; i++ {
		w := bits.OnesCount(uint(i))
		v := t >> uint(i) & 1
		if old, ok := val[w]; ok && old != v {
			return false
		}
		val[w] = v
	}
	return true
}

// bootstraps counts the gates that take a bootstrap (one each; the
// targets here have no two-bootstrap MUX left after mapping that matters).
func bootstraps(c *ir.Circuit) int {
	k := 0
	for i := range c.Nodes {
		if c.Nodes[i].Op.IsBootstrapped() {
			k++
		}
	}
	return k
}

func checkMapped(t *testing.T, c *ir.Circuit, target LUTTarget, k int) {
	t.Helper()
	for i, n := range c.Nodes {
		if n.Op == ir.OpLUT && (len(n.In) > k || !target.CanEvalLUT(n.Table, len(n.In))) {
			t.Fatalf("node %d: LUT%d %#x is not evaluable by the target", i, len(n.In), n.Table)
		}
	}
}

func TestLUTMapRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	targets := []struct {
		name string
		t    LUTTarget
	}{{"any3", anyFunction{3}}, {"any4", anyFunction{4}}, {"sym3", symmetricOnly{3}}, {"any6", anyFunction{6}}}
	for _, tg := range targets {
		for iter := 0; iter < 60; iter++ {
			c := randomCircuitNoParity(t, rng, 2+rng.IntN(12), 30+rng.IntN(80))
			c, err := Default().Run(c)
			if err != nil {
				t.Fatal(err)
			}
			d, err := LUTMap(tg.t, 6).Run(c)
			if err != nil {
				t.Fatalf("%s: %v", tg.name, err)
			}
			circuittest.Equivalent(t, c, d)
			checkMapped(t, d, tg.t, tg.t.MaxLUTInputs())
			// LUTs the target cannot evaluate must first be split into gates;
			// from there the mapper may only lower the count.
			e, err := expandLUTs(c, tg.t, tg.t.MaxLUTInputs())
			if err != nil {
				t.Fatal(err)
			}
			if bootstraps(d) > bootstraps(e) {
				t.Fatalf("%s: lut-map raised bootstraps from %d to %d", tg.name, bootstraps(e), bootstraps(d))
			}
		}
	}
}

// TestLUTMapPatterns checks the obvious wins: an XOR chain, majority and mux
// each collapse as far as the LUT size allows.
func TestLUTMapPatterns(t *testing.T) {
	build := func(f func(b *ir.Builder, x []ir.NodeID) ir.NodeID, n int) *ir.Circuit {
		b := ir.NewBuilder("p")
		x := b.Input("x", n, false)
		b.Output("y", 1, false, []ir.NodeID{f(b, x)})
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	xor9 := build(func(b *ir.Builder, x []ir.NodeID) ir.NodeID {
		v := x[0]
		for _, y := range x[1:] {
			v = b.Xor(v, y)
		}
		return v
	}, 9)
	maj := build(func(b *ir.Builder, x []ir.NodeID) ir.NodeID {
		return b.Or(b.And(x[0], x[1]), b.And(x[2], b.Xor(x[0], x[1])))
	}, 3)
	mux := build(func(b *ir.Builder, x []ir.NodeID) ir.NodeID {
		return b.Or(b.And(x[0], x[1]), b.AndNY(x[2], x[0]))
	}, 3)
	cases := []struct {
		name   string
		c      *ir.Circuit
		target LUTTarget
		want   int
	}{
		{"xor9/any3", xor9, anyFunction{3}, 4},   // 8 XORs -> 4 three-input parities
		{"xor9/sym3", xor9, symmetricOnly{3}, 4}, // parity is symmetric
		{"xor9/any4", xor9, anyFunction{4}, 3},   // 3 four-input parities
		{"maj/sym3", maj, symmetricOnly{3}, 1},
		{"mux/any3", mux, anyFunction{3}, 1},
		{"mux/sym3", mux, symmetricOnly{3}, 3}, // mux is not symmetric: stays 3 gates
	}
	for _, tc := range cases {
		d, err := LUTMap(tc.target, 6).Run(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, tc.c, d)
		if got := bootstraps(d); got != tc.want {
			t.Errorf("%s: %d bootstraps after lut-map, want %d", tc.name, got, tc.want)
		}
	}
}

// costedMux is a target whose native MUX takes two bootstraps (FHEW at a
// Q/4 encoding).
type costedMux struct{ LUTTarget }

func (costedMux) GateBootstraps(op ir.Op) int {
	if op == ir.OpMux {
		return 2
	}
	return 1
}

func TestLUTMapNativeCost(t *testing.T) {
	b := ir.NewBuilder("mux")
	x := b.Input("x", 3, false)
	b.Output("y", 1, false, []ir.NodeID{b.Mux(x[0], x[1], x[2])})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d, err := LUTMap(costedMux{anyFunction{3}}, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	if d.Stats().Count[ir.OpLUT] != 1 || d.Stats().Count[ir.OpMux] != 0 {
		t.Errorf("a two-bootstrap MUX that fits one LUT was kept: %v", d.Stats())
	}
	d, err = LUTMap(costedMux{symmetricOnly{3}}, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	if d.Stats().Count[ir.OpMux] != 1 {
		t.Errorf("MUX, not a symmetric function, should stay native: %v", d.Stats())
	}
}

func TestForLUTsPipeline(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := 0; iter < 30; iter++ {
		c := randomCircuit(t, rng, 2+rng.IntN(10), 40+rng.IntN(60))
		p := ForLUTs(costedMux{anyFunction{3}}, 3)
		p.Check = true
		d, err := p.Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
		checkMapped(t, d, anyFunction{3}, 3)
	}
}
