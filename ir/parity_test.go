package ir

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// parityCircuit is x0 ⊕ ... ⊕ x(k-1) as one PARITY node.
func parityCircuit(t *testing.T, k int) *Circuit {
	t.Helper()
	b := NewBuilder("par")
	x := b.Input("x", k, false)
	b.Output("y", 1, false, []NodeID{b.Raw(Node{Op: OpParity, In: x})})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParityEvaluators(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{2, 3, 7, MaxParityInputs} {
		c := parityCircuit(t, k)
		in := randomWords(rng, k)
		var want uint64
		for _, w := range in {
			want ^= w
		}
		if got := c.EvalBits(in)[0]; got != want {
			t.Errorf("k=%d: EvalBits %#x, want %#x", k, got, want)
		}
		prog := c.Compile()
		out := make([]uint64, 1)
		prog.EvalBitsInto(in, make([]uint64, prog.ScratchLen()), out)
		if out[0] != want {
			t.Errorf("k=%d: Program %#x, want %#x", k, out[0], want)
		}
		if got := EvalGate(OpParity, 0, in); got != want {
			t.Errorf("k=%d: EvalGate %#x, want %#x", k, got, want)
		}
		if s := c.StatsFor(twoBootstrapMux); s.Costly != 1 || s.AndDepth != 0 || s.CostDepth != 1 {
			t.Errorf("k=%d: stats %+v", k, s)
		}
	}
}

func TestParityVerify(t *testing.T) {
	c := parityCircuit(t, 3)
	c.Nodes[3].In = c.Nodes[3].In[:1]
	if err := Verify(c); err == nil || !strings.Contains(err.Error(), "PARITY) has 1 inputs") {
		t.Errorf("one-input PARITY: %v", err)
	}
	c = parityCircuit(t, 3)
	c.Nodes[3].Table = 1
	if err := Verify(c); err == nil {
		t.Error("PARITY with a table verified")
	}
	c = parityCircuit(t, MaxParityInputs)
	last := &c.Nodes[len(c.Nodes)-1]
	last.In = append(last.In, last.In[0])
	if err := Verify(c); err == nil {
		t.Error("too wide PARITY verified")
	}
}

func TestBuilderParity(t *testing.T) {
	b := NewBuilder("p")
	x := b.Input("x", 5, false)
	p := b.Parity(x[0], x[1], x[2])
	if n := b.Node(p); n.Op != OpParity || len(n.In) != 3 {
		t.Fatalf("Parity(x0, x1, x2) = %v", n)
	}
	if q := b.Parity(x[2], x[0], x[1]); q != p {
		t.Error("PARITY not hashed on its sorted fanins")
	}
	if q := b.Parity(x[2], x[0], x[1], x[3], x[3], b.Const(false)); q != p {
		t.Error("duplicates and constant 0 not cancelled")
	}
	q := b.Parity(b.Not(x[0]), x[1], x[2])
	if n := b.Node(q); n.Op != OpNot || n.In[0] != p {
		t.Errorf("NOT on an input should flip the output: %v", n)
	}
	if q := b.Parity(x[0], x[1], x[2], b.Const(true)); b.Node(q).Op != OpNot || b.Node(q).In[0] != p {
		t.Error("constant 1 should flip the output")
	}
	if q := b.Parity(x[0], x[4], x[0]); q != x[4] {
		t.Error("x0 ⊕ x4 ⊕ x0 is not x4")
	}
	if q := b.Parity(x[0], x[4]); b.Node(q).Op != OpXor {
		t.Error("two inputs should give XOR")
	}
	if q := b.Parity(x[1], x[1]); q != b.Const(false) {
		t.Error("x ⊕ x is not 0")
	}
	b.SetFolding(false)
	if q := b.Parity(x[3], x[3], x[1]); b.Node(q).Op != OpParity || len(b.Node(q).In) != 3 {
		t.Error("without folding PARITY should be kept as written")
	}
}

// TestParityFormats round-trips PARITY through .hir and checks the BLIF and
// Bristol exports compute the same function.
func TestParityFormats(t *testing.T) {
	c := parityCircuit(t, 9)
	text := writeHIR(t, c)
	if !strings.Contains(string(text), "= PARITY %0 %1") {
		t.Errorf("hir text:\n%s", text)
	}
	d, err := ReadHIR(bytes.NewReader(text), "p.hir")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, d) {
		t.Error("hir round trip changed the circuit")
	}
	if _, err := ReadHIR(strings.NewReader("hir 1\ncircuit c\ninput a: bit\noutput o: bit\n%0 = INPUT a 0\n%1 = PARITY %0\nbits o = %1\n"), "bad.hir"); err == nil {
		t.Error("one-input PARITY read")
	}
	var buf bytes.Buffer
	if err := WriteBristol(&buf, c); err != nil {
		t.Fatal(err)
	}
	e, err := ReadBristol(&buf, "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	in := randomWords(rng, 9)
	if !reflect.DeepEqual(c.EvalBits(in), e.EvalBits(in)) {
		t.Error("Bristol export computes another function")
	}
	buf.Reset()
	if err := WriteBLIF(&buf, c); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), ".names"); n != 8+1 {
		t.Errorf("BLIF has %d tables, want 8 XORs and the output buffer:\n%s", n, buf.String())
	}
}
