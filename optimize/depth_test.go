package optimize

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/internal/testenv"
	"github.com/hcc-fhe/hcc/ir"
)

// checkXAG fails if c has a gate AndDepth should have lowered.
func checkXAG(t *testing.T, c *ir.Circuit) {
	t.Helper()
	for i, n := range c.Nodes {
		switch n.Op {
		case ir.OpOr, ir.OpNand, ir.OpNor, ir.OpXnor, ir.OpAndNY, ir.OpMux:
			t.Fatalf("after and-depth, node %d is still %v", i, n.Op)
		}
	}
}

func TestAndDepthRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 300; iter++ {
		c := randomCircuit(t, rng, 2+rng.IntN(15), 20+rng.IntN(100))
		d := circuittest.CheckPass(t, AndDepth.Name, AndDepth.Run, c)
		checkXAG(t, d)
		if a, b := andDepthOf(c), andDepthOf(d); b > a {
			t.Fatalf("iteration %d: and-depth rose from %d to %d", iter, a, b)
		}
		e, err := ForDepth().Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, e)
		checkProperty(t, "dce", e)
	}
}

// chain folds op over n fresh input bits from the left: ((x0 op x1) op x2)...
func chain(n int, op func(b *ir.Builder, acc, x ir.NodeID) ir.NodeID) *ir.Circuit {
	b := ir.NewBuilder("chain")
	x := b.Input("x", n, false)
	acc := x[0]
	for _, xi := range x[1:] {
		acc = op(b, acc, xi)
	}
	b.Output("y", 1, false, []ir.NodeID{acc})
	c, err := b.Build()
	if err != nil {
		panic(err)
	}
	return c
}

func TestAndDepthChains(t *testing.T) {
	type tc struct {
		name          string
		n             int
		op            func(b *ir.Builder, acc, x ir.NodeID) ir.NodeID
		before, after int
	}
	cases := []tc{
		{"and64", 64, (*ir.Builder).And, 63, 6},
		{"or16", 16, (*ir.Builder).Or, 15, 4},
		{"nand-nor-andny16", 16, func(b *ir.Builder, acc, x ir.NodeID) ir.NodeID {
			// acc ∧ ¬x in three spellings: all one AND tree once lowered
			switch b.Len() % 3 {
			case 0:
				return b.AndNY(acc, x)
			case 1:
				return b.Nor(b.Not(acc), x)
			}
			return b.Not(b.Nand(acc, b.Not(x)))
		}, 15, 4},
		// a MUX chain through the then-input, x ? acc : ¬x = ¬x ⊕ x∧acc: one
		// AND a step that only distribution (x∧(¬x ⊕ x∧acc) = ... ) shortens.
		{"mux16", 16, func(b *ir.Builder, acc, x ir.NodeID) ir.NodeID { return b.Mux(x, acc, b.Not(x)) }, 15, 5},
	}
	for _, k := range cases {
		c := chain(k.n, k.op)
		if got := andDepthOf(c); got != k.before {
			t.Fatalf("%s: built with and-depth %d, want %d", k.name, got, k.before)
		}
		d := circuittest.CheckPass(t, AndDepth.Name, AndDepth.Run, c)
		checkXAG(t, d)
		if got := andDepthOf(d); got != k.after {
			t.Errorf("%s: and-depth %d -> %d, want %d", k.name, k.before, got, k.after)
		}
	}
}

// TestAndDepthMultiplyAdd checks distribution on the multiply-then-add
// chain acc = x_i ∧ (y_i ⊕ acc), the shape of the deep S-box in aes_128.txt.
func TestAndDepthMultiplyAdd(t *testing.T) {
	b := ir.NewBuilder("muladd")
	x := b.Input("x", 8, false)
	y := b.Input("y", 8, false)
	acc := b.Xor(x[0], y[0])
	for i := 1; i < 8; i++ {
		acc = b.And(x[i], b.Xor(y[i], acc))
	}
	b.Output("z", 1, false, []ir.NodeID{acc})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d := circuittest.CheckPass(t, AndDepth.Name, AndDepth.Run, c)
	if before, after := andDepthOf(c), andDepthOf(d); before != 7 || after > 4 {
		t.Errorf("multiply-add chain: and-depth %d -> %d, want 7 -> at most 4", before, after)
	}
}

// rippleAdder builds an n-bit adder the way Bristol's adder64 and stdlib's
// ripple adder do (carry c' = c ⊕ (a⊕c)∧(b⊕c)); sub makes it a - b = a + ¬b + 1.
func rippleAdder(n int, sub bool) *ir.Circuit {
	b := ir.NewBuilder("ripple")
	x := b.Input("a", n, false)
	y := b.Input("b", n, false)
	if sub {
		for i := range y {
			y[i] = b.Not(y[i])
		}
	}
	c := b.Const(sub)
	sum := make([]ir.NodeID, n)
	for i := 0; i < n; i++ {
		t1, t2 := b.Xor(x[i], c), b.Xor(y[i], c)
		sum[i] = b.Xor(x[i], t2)
		c = b.Xor(c, b.And(t1, t2))
	}
	b.Output("s", n+1, false, append(sum, c))
	cc, err := b.Build()
	if err != nil {
		panic(err)
	}
	return cc
}

func TestAndDepthRippleAdder(t *testing.T) {
	for _, sub := range []bool{false, true} {
		c := rippleAdder(8, sub)
		before := andDepthOf(c)
		d := circuittest.CheckPass(t, AndDepth.Name, AndDepth.Run, c)
		after := andDepthOf(d)
		// Sklansky over 8 positions plus the generate: 1 + 3 levels.
		if after > 4 || before < 7 {
			t.Errorf("sub=%v: and-depth %d -> %d, want a ripple of 7+ down to at most 4", sub, before, after)
		}
	}
}

func TestAndDepthBristol(t *testing.T) {
	dir := testenv.SharedCircuits(t)
	for _, name := range []string{"adder64", "zero_equal", "mult64", "aes_128", "AES-non-expanded"} {
		c, err := ir.ReadFile(filepath.Join(dir, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		d := circuittest.CheckPass(t, AndDepth.Name, AndDepth.Run, c)
		checkXAG(t, d)
		if d, err = DCE.Run(d); err != nil {
			t.Fatal(err)
		}
		circuittest.EquivalentRounds(t, c, d, 4)
		s0, s1 := c.Stats(), d.Stats()
		if s1.AndDepth > s0.AndDepth {
			t.Errorf("%s: and-depth rose from %d to %d", name, s0.AndDepth, s1.AndDepth)
		}
		if name == "adder64" && s1.AndDepth > 8 {
			t.Errorf("adder64: and-depth %d, want the parallel-prefix 7 or 8", s1.AndDepth)
		}
		if name == "mult64" && s1.AndDepth > 16 {
			t.Errorf("mult64: and-depth %d, want the column-compressed 14 or so", s1.AndDepth)
		}
		if name == "aes_128" && s1.AndDepth > 40 {
			t.Errorf("aes_128: and-depth %d, want its depth-6 S-boxes distributed to 4 (40 in all)", s1.AndDepth)
		}
		t.Logf("%-17s and-depth %3d -> %3d   AND %5d -> %5d   gates %5d -> %5d", name,
			s0.AndDepth, s1.AndDepth, s0.Count[ir.OpAnd], s1.Count[ir.OpAnd], s0.Gates, s1.Gates)
	}
}
