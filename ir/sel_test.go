package ir

import (
	"bytes"
	"strings"
	"testing"
)

// selCircuit builds 4 CMuxes on one select s (a ? : b, bitwise), one CMux
// on a select computed by a gate (s ∧ a0), and outputs the select node
// itself: inputs s (1 bit), a, b (4 bits each).
func selCircuit(t testing.TB) *Circuit {
	t.Helper()
	b := NewBuilder("cmux")
	s := b.Input("s", 1, false)[0]
	a := b.Input("a", 4, false)
	f := b.Input("b", 4, false)
	sel := b.Sel(s)
	out := make([]NodeID, 4)
	for i := range out {
		out[i] = b.CMux(sel, a[i], f[i])
	}
	g := b.Sel(b.And(s, a[0]))
	b.Output("m", 4, false, out)
	b.Output("g", 1, false, []NodeID{b.CMux(g, b.Not(a[1]), f[2])})
	b.Output("s", 1, false, []NodeID{sel})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// selWant is the function selCircuit computes, from the packed inputs
// (s = bit 0, a = bits 1-4, b = bits 5-8), outputs packed the same way
// (m = bits 0-3, g = bit 4, s = bit 5).
func selWant(x uint) uint {
	s, a, f := x&1, x>>1&15, x>>5&15
	m := f
	if s == 1 {
		m = a
	}
	g := f >> 2 & 1
	if s&a == 1 {
		g = ^a >> 1 & 1
	}
	return m | g<<4 | s<<5
}

// evalAllSel evaluates c on all 512 inputs (8 words of 64 lanes) and
// returns the packed outputs per input.
func evalAllSel(t *testing.T, c *Circuit) []uint {
	t.Helper()
	if c.NumInputBits() != 9 || c.NumOutputBits() != 6 {
		t.Fatalf("circuit has %d/%d bits, want 9/6", c.NumInputBits(), c.NumOutputBits())
	}
	res := make([]uint, 512)
	prog := c.Compile()
	vals := make([]uint64, prog.ScratchLen())
	pout := make([]uint64, 6)
	for blk := 0; blk < 8; blk++ {
		in := make([]uint64, 9)
		for lane := 0; lane < 64; lane++ {
			x := blk*64 + lane
			for i := range in {
				in[i] |= uint64(x>>i&1) << lane
			}
		}
		out := c.EvalBits(in)
		prog.EvalBitsInto(in, vals, pout)
		for j := range out {
			if out[j] != pout[j] {
				t.Fatalf("output bit %d: Program %#x, EvalBits %#x", j, pout[j], out[j])
			}
		}
		for lane := 0; lane < 64; lane++ {
			v := uint(0)
			for j := range out {
				v |= uint(out[j]>>lane&1) << j
			}
			res[blk*64+lane] = v
		}
	}
	return res
}

func checkSel(t *testing.T, what string, c *Circuit) {
	t.Helper()
	for x, got := range evalAllSel(t, c) {
		if want := selWant(uint(x)); got != want {
			t.Fatalf("%s: input %09b gives %06b, want %06b", what, x, got, want)
		}
	}
}

func TestSelCMuxEval(t *testing.T) {
	c := selCircuit(t)
	checkSel(t, "EvalBits", c)
	if !OpSel.IsBootstrapped() || OpCMux.IsBootstrapped() {
		t.Fatal("SEL must count as bootstrapped and CMUX not")
	}
	if OpSel.Arity() != 1 || OpCMux.Arity() != 3 {
		t.Fatalf("arities %d %d", OpSel.Arity(), OpCMux.Arity())
	}
	if o, ok := OpByName("CMUX"); !ok || o != OpCMux {
		t.Fatal("CMUX name does not resolve")
	}
	st := c.Stats()
	if st.Count[OpSel] != 2 || st.Count[OpCMux] != 5 {
		t.Fatalf("Stats counts SEL %d CMUX %d, want 2, 5", st.Count[OpSel], st.Count[OpCMux])
	}
	if !strings.Contains(st.String(), "SEL:") || !strings.Contains(st.String(), "CMUX:") {
		t.Fatalf("Stats text lacks SEL/CMUX:\n%s", st)
	}
	// EvalGate: SEL is the identity, CMUX a MUX on the select's value.
	if EvalGate(OpSel, 0, []uint64{0b10}) != 0b10 || EvalGate(OpCMux, 0, []uint64{0b1100, 0b1010, 0b0110}) != 0b1010 {
		t.Fatal("EvalGate on SEL/CMUX")
	}
}

func TestSelVerifyRejects(t *testing.T) {
	c := selCircuit(t)
	// The first CMux reads the SEL node; point it at the select's input.
	for i := range c.Nodes {
		if c.Nodes[i].Op == OpCMux {
			c.Nodes[i].In[0] = c.Nodes[c.Nodes[i].In[0]].In[0]
			break
		}
	}
	if err := Verify(c); err == nil || !strings.Contains(err.Error(), "SEL") {
		t.Fatalf("Verify = %v, want the SEL error", err)
	}
	c = selCircuit(t)
	for i := range c.Nodes {
		if c.Nodes[i].Op == OpSel {
			c.Nodes[i].In = append(c.Nodes[i].In, c.Nodes[i].In[0])
			break
		}
	}
	if err := Verify(c); err == nil || !strings.Contains(err.Error(), "inputs, want 1") {
		t.Fatalf("Verify = %v, want the arity error", err)
	}
	var buf bytes.Buffer
	if err := WriteHIR(&buf, selCircuit(t)); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(buf.String(), "= SEL %0", "= NOT %0", 1)
	if bad == buf.String() {
		t.Fatalf("no SEL line on input 0:\n%s", buf.String())
	}
	if _, err := ReadHIR(strings.NewReader(bad), "bad.hir"); err == nil || !strings.Contains(err.Error(), "SEL") {
		t.Fatalf("ReadHIR of a CMUX on a NOT = %v, want the SEL error", err)
	}
}

func TestSelTextBristolBLIF(t *testing.T) {
	c := selCircuit(t)
	var buf bytes.Buffer
	if err := WriteHIR(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "= SEL %") || !strings.Contains(buf.String(), "= CMUX %") {
		t.Fatalf(".hir lacks the SEL/CMUX lines:\n%s", buf.String())
	}
	d, err := ReadHIR(&buf, "cmux.hir")
	if err != nil {
		t.Fatal(err)
	}
	checkSel(t, ".hir round trip", d)
	if d.Stats().Count[OpCMux] != 5 {
		t.Fatal(".hir round trip lost the CMUX nodes")
	}
	buf.Reset()
	if err := WriteBristol(&buf, c); err != nil {
		t.Fatal(err)
	}
	e, err := ReadBristol(&buf, "cmux")
	if err != nil {
		t.Fatal(err)
	}
	checkSel(t, "Bristol round trip", e)
	buf.Reset()
	if err := WriteBLIF(&buf, c); err != nil {
		t.Fatal(err)
	}
	// The SEL is a one-input identity table, the CMUX a MUX table on it.
	blif := buf.String()
	if !strings.Contains(blif, ".names s_0 n9\n1 1\n") || !strings.Contains(blif, ".names n9 a_0 b_0 n10\n") {
		t.Fatalf("BLIF lacks the SEL/CMUX tables:\n%s", blif)
	}
	buf.Reset()
	if err := WriteDOT(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\"CMUX\"") || !strings.Contains(buf.String(), "\"SEL\"") {
		t.Fatal("DOT lacks the SEL/CMUX labels")
	}
}
