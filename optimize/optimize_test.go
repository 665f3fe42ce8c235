package optimize

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// randomCircuit is optimize's shape of circuittest.Random: every gate op
// (LUTs of up to 4 inputs), constants, duplicate gates for hashing, dead
// logic.
func randomCircuit(t testing.TB, rng *rand.Rand, nIn, nGates int) *ir.Circuit {
	return circuittest.Random(t, rng, circuittest.Config{Inputs: nIn, Gates: nGates, MaxLUTInputs: 4, Duplicates: true})
}

// noParityOps is every gate op but PARITY, for bounds that count a PARITY
// as one bootstrap whatever the target: lut-map must split a wide parity
// for a target without parity bootstraps.
var noParityOps = slices.DeleteFunc(slices.Clone(circuittest.AllGateOps), func(op ir.Op) bool { return op == ir.OpParity })

// randomCircuitNoParity is randomCircuit without PARITY nodes.
func randomCircuitNoParity(t testing.TB, rng *rand.Rand, nIn, nGates int) *ir.Circuit {
	return circuittest.Random(t, rng, circuittest.Config{Inputs: nIn, Gates: nGates, MaxLUTInputs: 4, Duplicates: true, Ops: noParityOps})
}

// gates counts the gates that cost a bootstrap (NOT is free).
func gates(c *ir.Circuit) int {
	n := 0
	for i := range c.Nodes {
		if c.Nodes[i].Op.IsBootstrapped() {
			n++
		}
	}
	return n
}

func TestPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		c := randomCircuit(t, rng, 2+rng.IntN(9), 20+rng.IntN(60))
		for _, p := range []Pass{Fold, Hash, DCE} {
			d := circuittest.CheckPass(t, p.Name, p.Run, c)
			if gates(d) > gates(c) {
				t.Fatalf("%s grew the circuit from %d to %d gates", p.Name, gates(c), gates(d))
			}
			checkProperty(t, p.Name, d)
		}
		d := circuittest.CheckPass(t, "default pipeline", Default().Run, c)
		checkProperty(t, "fold", d)
		checkProperty(t, "hash", d)
		checkProperty(t, "dce", d)
	}
}

func checkProperty(t *testing.T, pass string, c *ir.Circuit) {
	t.Helper()
	switch pass {
	case "fold":
		for i, n := range c.Nodes {
			for _, x := range n.In {
				if op := c.Nodes[x].Op; op == ir.OpConst0 || op == ir.OpConst1 {
					t.Fatalf("after fold, node %d (%v) still reads a constant", i, n.Op)
				}
			}
		}
	case "hash":
		seen := map[string]int{}
		for i, n := range c.Nodes {
			if !n.Op.IsGate() {
				continue
			}
			key := n.Op.String()
			in := append([]ir.NodeID(nil), n.In...)
			if n.Op != ir.OpAndNY && n.Op != ir.OpMux && n.Op != ir.OpLUT && len(in) == 2 && in[0] > in[1] {
				in[0], in[1] = in[1], in[0]
			}
			for _, x := range in {
				key += " " + string(rune(x+1))
			}
			key += string(rune(n.Table & 0xffff))
			if j, ok := seen[key]; ok && c.Nodes[j].Table == n.Table {
				t.Fatalf("after hash, nodes %d and %d are the same gate %v", j, i, n.Op)
			}
			seen[key] = i
		}
	case "dce":
		used := make([]bool, len(c.Nodes))
		for _, bus := range c.Outputs {
			for _, id := range bus.Bits {
				used[id] = true
			}
		}
		for i := len(c.Nodes) - 1; i >= 0; i-- {
			if used[i] {
				for _, x := range c.Nodes[i].In {
					used[x] = true
				}
			} else if c.Nodes[i].Op != ir.OpInput {
				t.Fatalf("after dce, node %d (%v) reaches no output", i, c.Nodes[i].Op)
			}
		}
	}
}

func TestFoldLUTReduces(t *testing.T) {
	b := ir.NewBuilder("lut")
	x := b.Input("x", 2, false)
	one := b.Raw(ir.Node{Op: ir.OpConst1})
	// majority(x0, x1, 1) = x0 | x1; majority(x0, x0, x1) = x0.
	m1 := b.Raw(ir.Node{Op: ir.OpLUT, In: []ir.NodeID{x[0], x[1], one}, Table: 0b11101000})
	m2 := b.Raw(ir.Node{Op: ir.OpLUT, In: []ir.NodeID{x[0], x[0], x[1]}, Table: 0b11101000})
	b.Output("y", 2, false, []ir.NodeID{m1, m2})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Default().Run(c)
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	y := d.Outputs[0].Bits
	if n := d.Nodes[y[0]]; n.Op != ir.OpOr {
		t.Errorf("majority with a constant 1 became %v %v %b, want an OR gate", n.Op, n.In, n.Table)
	}
	if y[1] != d.Inputs[0].Bits[0] {
		t.Errorf("majority(x0, x0, x1) should be the wire x0, got node %v", d.Nodes[y[1]])
	}
}

func TestPipelineOrdering(t *testing.T) {
	p := &Pipeline{Passes: []Pass{DCE, Fold}}
	if err := p.Validate(); err == nil {
		t.Fatal("pipeline with dce before fold was accepted")
	}
}

func TestAbsorbNot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 200; iter++ {
		c := randomCircuit(t, rng, 2+rng.IntN(9), 20+rng.IntN(60))
		c, err := Default().Run(c)
		if err != nil {
			t.Fatal(err)
		}
		d := circuittest.CheckPass(t, AbsorbNot.Name, AbsorbNot.Run, c)
		if gates(d) > gates(c) {
			t.Fatalf("absorb-not added bootstrapped gates: %d -> %d", gates(c), gates(d))
		}
		for i, n := range d.Nodes {
			for _, x := range n.In {
				if d.Nodes[x].Op == ir.OpNot {
					t.Fatalf("after absorb-not, node %d (%v) still reads NOT node %d", i, n.Op, x)
				}
			}
		}
	}
}
