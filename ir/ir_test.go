package ir

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// rippleAdder builds an n-bit adder by hand so the core types can be tested
// without the stdlib package.
func rippleAdder(t *testing.T, n int) *Circuit {
	t.Helper()
	b := NewBuilder("add")
	x := b.Input("x", n, false)
	y := b.Input("y", n, false)
	carry := b.Const(false)
	sum := make([]NodeID, n)
	for i := 0; i < n; i++ {
		p := b.Xor(x[i], y[i])
		sum[i] = b.Xor(p, carry)
		carry = b.Or(b.And(x[i], y[i]), b.And(p, carry))
	}
	b.Output("s", n, false, sum)
	b.Output("c", 1, false, []NodeID{carry})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEvalAdderExhaustive(t *testing.T) {
	c := rippleAdder(t, 6)
	var ins []Values
	for x := 0; x < 64; x++ {
		for y := 0; y < 64; y++ {
			ins = append(ins, Values{"x": {big.NewInt(int64(x))}, "y": {big.NewInt(int64(y))}})
		}
	}
	outs, err := c.EvalBatch(ins)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		x, y := ins[i]["x"][0].Int64(), ins[i]["y"][0].Int64()
		if got := o["s"][0].Int64() + o["c"][0].Int64()<<6; got != x+y {
			t.Fatalf("%d+%d = %d", x, y, got)
		}
	}
}

func TestBuilderFolds(t *testing.T) {
	b := NewBuilder("f")
	x := b.Input("x", 2, false)
	zero, one := b.Const(false), b.Const(true)
	cases := []struct {
		name      string
		got, want NodeID
	}{
		{"x&0", b.And(x[0], zero), zero},
		{"x&1", b.And(x[0], one), x[0]},
		{"x|1", b.Or(x[0], one), one},
		{"x^x", b.Xor(x[0], x[0]), zero},
		{"~~x", b.Not(b.Not(x[0])), x[0]},
		{"x&~x", b.And(x[0], b.Not(x[0])), zero},
		{"hash", b.And(x[0], x[1]), b.And(x[1], x[0])},
		{"mux1", b.Mux(one, x[0], x[1]), x[0]},
		{"muxsame", b.Mux(x[0], x[1], x[1]), x[1]},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: got node %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestGateSemantics(t *testing.T) {
	b := NewBuilder("g")
	in := b.Input("i", 3, false)
	a, c, s := in[0], in[1], in[2]
	outs := []struct {
		name string
		id   NodeID
		f    func(a, b, s bool) bool
	}{
		{"not", b.Raw(Node{Op: OpNot, In: []NodeID{a}}), func(a, b, s bool) bool { return !a }},
		{"and", b.Raw(Node{Op: OpAnd, In: []NodeID{a, c}}), func(a, b, s bool) bool { return a && b }},
		{"or", b.Raw(Node{Op: OpOr, In: []NodeID{a, c}}), func(a, b, s bool) bool { return a || b }},
		{"xor", b.Raw(Node{Op: OpXor, In: []NodeID{a, c}}), func(a, b, s bool) bool { return a != b }},
		{"nand", b.Raw(Node{Op: OpNand, In: []NodeID{a, c}}), func(a, b, s bool) bool { return !(a && b) }},
		{"nor", b.Raw(Node{Op: OpNor, In: []NodeID{a, c}}), func(a, b, s bool) bool { return !(a || b) }},
		{"xnor", b.Raw(Node{Op: OpXnor, In: []NodeID{a, c}}), func(a, b, s bool) bool { return a == b }},
		{"andny", b.Raw(Node{Op: OpAndNY, In: []NodeID{a, c}}), func(a, b, s bool) bool { return a && !b }},
		{"mux", b.Raw(Node{Op: OpMux, In: []NodeID{s, a, c}}), func(a, b, s bool) bool {
			if s {
				return a
			}
			return b
		}},
		// majority: table bit i set when popcount(i) >= 2
		{"lut3", b.Raw(Node{Op: OpLUT, In: []NodeID{a, c, s}, Table: 0b11101000}), func(a, b, s bool) bool {
			n := 0
			for _, v := range []bool{a, b, s} {
				if v {
					n++
				}
			}
			return n >= 2
		}},
	}
	for _, o := range outs {
		b.Output(o.name, 1, false, []NodeID{o.id})
	}
	circ, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 8; v++ {
		res, err := circ.Eval(Values{"i": {big.NewInt(int64(v))}})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			want := o.f(v&1 == 1, v&2 == 2, v&4 == 4)
			if got := res[o.name][0].Sign() == 1; got != want {
				t.Errorf("%s(%03b) = %v, want %v", o.name, v, got, want)
			}
		}
	}
}

func TestVerifyRejects(t *testing.T) {
	b := NewBuilder("v")
	x := b.Input("x", 2, false)
	g := b.And(x[0], x[1])
	b.Output("o", 1, false, []NodeID{g})
	good := b.Circuit()
	if err := Verify(good); err != nil {
		t.Fatal(err)
	}
	mutations := map[string]func(c *Circuit){
		"forward ref": func(c *Circuit) { c.Nodes[g].In[0] = g },
		"cycle": func(c *Circuit) {
			c.Nodes = append(c.Nodes, Node{Op: OpNot, In: []NodeID{g}})
			c.Nodes[g].In[0] = NodeID(len(c.Nodes) - 1)
		},
		"missing ref":  func(c *Circuit) { c.Nodes[g].In[1] = 99 },
		"arity":        func(c *Circuit) { c.Nodes[g].In = c.Nodes[g].In[:1] },
		"undriven":     func(c *Circuit) { c.Outputs[0].Bits[0] = -1 },
		"width":        func(c *Circuit) { c.Outputs[0].Width = 2 },
		"dup bus":      func(c *Circuit) { c.Outputs = append(c.Outputs, c.Outputs[0]) },
		"lut table":    func(c *Circuit) { c.Nodes[g] = Node{Op: OpLUT, In: []NodeID{0}, Table: 0x10} },
		"input broken": func(c *Circuit) { c.Nodes[0].Bit = 1 },
	}
	for name, mut := range mutations {
		c := good.Clone()
		mut(c)
		if err := Verify(c); err == nil {
			t.Errorf("%s: Verify accepted a broken circuit", name)
		}
	}
}

// TestEvalGateMatchesEvalBits checks the single-gate evaluator against the
// circuit evaluator on every op, with random lanes.
func TestEvalGateMatchesEvalBits(t *testing.T) {
	ops := []Op{OpNot, OpAnd, OpOr, OpXor, OpNand, OpNor, OpXnor, OpAndNY, OpMux, OpLUT}
	for _, op := range ops {
		for k := 1; k <= MaxLUTInputs; k++ {
			arity := op.Arity()
			if op == OpLUT {
				arity = k
			} else if k > 1 {
				break
			}
			b := NewBuilder("g")
			x := b.Input("x", arity, false)
			table := uint64(0x9c3a_5f21_7e04_b6d8)
			if arity < 6 {
				table &= 1<<(1<<arity) - 1
			}
			g := b.Raw(Node{Op: op, In: x, Table: table})
			b.Output("y", 1, false, []NodeID{g})
			c, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			in := make([]uint64, arity)
			for j := range in {
				in[j] = 0x0123_4567_89ab_cdef*uint64(j+1) ^ uint64(j)<<40 ^ 0xf0f0_0ff0_3c3c_a5a5>>j
			}
			if got, want := EvalGate(op, table, in), c.EvalBits(in)[0]; got != want {
				t.Errorf("%v/k=%d: EvalGate %#x, EvalBits %#x", op, arity, got, want)
			}
		}
	}
}

// TestEvalTable checks the shared LUT semantics against a lane-by-lane
// lookup for every fan-in and random tables.
func TestEvalTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for k := 0; k <= MaxLUTInputs; k++ {
		for iter := 0; iter < 50; iter++ {
			table := rng.Uint64()
			vars := make([]uint64, k)
			for j := range vars {
				vars[j] = rng.Uint64()
			}
			got := EvalTable(table, vars)
			for lane := 0; lane < 64; lane++ {
				idx := 0
				for j := range vars {
					idx |= int(vars[j]>>uint(lane)&1) << j
				}
				if want := table >> uint(idx) & 1; got>>uint(lane)&1 != want {
					t.Fatalf("k=%d table %#x lane %d: got %d, want %d", k, table, lane, got>>uint(lane)&1, want)
				}
			}
		}
	}
}
