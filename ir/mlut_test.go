package ir

import (
	"bytes"
	"strings"
	"testing"
)

// mlutCircuit builds a full adder as one MLUT (sum) and one MOUT (carry)
// over inputs a, b, c.
func mlutCircuit(t *testing.T, carryTable uint64) *Circuit {
	t.Helper()
	b := NewBuilder("fa")
	in := b.Input("x", 3, false)
	packed, ok := PackMLUT([]uint64{0b10010110, 0b11101000}, 3)
	if !ok {
		t.Fatal("PackMLUT failed")
	}
	root := b.Raw(Node{Op: OpMLUT, In: in, Table: packed})
	carry := b.Raw(Node{Op: OpMOut, In: append([]NodeID{root}, in...), Table: carryTable})
	b.Output("s", 1, false, []NodeID{root})
	b.Output("c", 1, false, []NodeID{carry})
	return b.Circuit()
}

func TestMLUTPackAndEval(t *testing.T) {
	packed, ok := PackMLUT([]uint64{0b0110, 0b1000, 0b0110}, 2)
	if !ok {
		t.Fatal("PackMLUT failed")
	}
	if got := MLUTTables(packed, 2); len(got) != 2 || got[0] != 0b0110 || got[1] != 0b1000 {
		t.Fatalf("MLUTTables = %#x", got)
	}
	if _, ok := PackMLUT([]uint64{0b10000}, 2); ok {
		t.Fatal("a table with stray bits packed")
	}
	if _, ok := PackMLUT([]uint64{1, 2}, 6); ok {
		t.Fatal("6-input MLUT packed")
	}
	c := mlutCircuit(t, 0b11101000)
	if err := Verify(c); err != nil {
		t.Fatal(err)
	}
	prog := c.Compile()
	vals := make([]uint64, prog.ScratchLen())
	for x := 0; x < 8; x++ {
		in := make([]uint64, 3)
		for i := range in {
			if x>>i&1 == 1 {
				in[i] = ^uint64(0)
			}
		}
		out := c.EvalBits(in)
		pout := make([]uint64, 2)
		prog.EvalBitsInto(in, vals, pout)
		n := x&1 + x>>1&1 + x>>2
		if out[0]&1 != uint64(n&1) || out[1]&1 != uint64(n>>1) {
			t.Fatalf("x = %03b: sum %d carry %d", x, out[0]&1, out[1]&1)
		}
		if out[0] != pout[0] || out[1] != pout[1] {
			t.Fatalf("x = %03b: Program %v, EvalBits %v", x, pout, out)
		}
	}
	if st := c.Stats(); st.Gates == 0 {
		t.Fatal("no gates counted")
	}
	if !OpMLUT.IsBootstrapped() || OpMOut.IsBootstrapped() {
		t.Fatal("MLUT must cost a bootstrap and MOUT none")
	}
}

func TestMLUTVerifyRejects(t *testing.T) {
	c := mlutCircuit(t, 0b10000000) // AND3 is not packed in the MLUT
	if err := Verify(c); err == nil || !strings.Contains(err.Error(), "does not pack") {
		t.Fatalf("Verify = %v, want the unpacked-table error", err)
	}
	c = mlutCircuit(t, 0b11101000)
	c.Nodes[len(c.Nodes)-1].In[2] = c.Nodes[len(c.Nodes)-1].In[1]
	if err := Verify(c); err == nil || !strings.Contains(err.Error(), "other inputs") {
		t.Fatalf("Verify = %v, want the other-inputs error", err)
	}
	c = mlutCircuit(t, 0b11101000)
	c.Nodes[len(c.Nodes)-1].In[0] = 0
	if err := Verify(c); err == nil || !strings.Contains(err.Error(), "MLUT") {
		t.Fatalf("Verify = %v, want the MLUT error", err)
	}
}

func TestMLUTTextBristolBLIF(t *testing.T) {
	c := mlutCircuit(t, 0b11101000)
	var buf bytes.Buffer
	if err := WriteHIR(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "MLUT 0x") || !strings.Contains(buf.String(), "MOUT 0xe8") {
		t.Fatalf(".hir lacks the MLUT/MOUT lines:\n%s", buf.String())
	}
	d, err := ReadHIR(&buf, "fa.hir")
	if err != nil {
		t.Fatal(err)
	}
	for x := uint64(0); x < 8; x++ {
		in := []uint64{x & 1 * ^uint64(0), x >> 1 & 1 * ^uint64(0), x >> 2 * ^uint64(0)}
		a, b := c.EvalBits(in), d.EvalBits(in)
		if a[0] != b[0] || a[1] != b[1] {
			t.Fatalf(".hir round trip changed the function at %03b", x)
		}
	}
	buf.Reset()
	if err := WriteBristol(&buf, c); err != nil {
		t.Fatal(err)
	}
	e, err := ReadBristol(&buf, "fa")
	if err != nil {
		t.Fatal(err)
	}
	for x := uint64(0); x < 8; x++ {
		in := []uint64{x & 1 * ^uint64(0), x >> 1 & 1 * ^uint64(0), x >> 2 * ^uint64(0)}
		a, b := c.EvalBits(in), e.EvalBits(in)
		if a[0] != b[0] || a[1] != b[1] {
			t.Fatalf("Bristol round trip changed the function at %03b", x)
		}
	}
	buf.Reset()
	if err := WriteBLIF(&buf, c); err != nil {
		t.Fatal(err)
	}
	// The MOUT is a plain 3-input table over the MLUT's inputs (the carry).
	if !strings.Contains(buf.String(), ".names x_0 x_1 x_2 n4\n110 1\n101 1\n011 1\n111 1\n") {
		t.Fatalf("BLIF lacks the carry table:\n%s", buf.String())
	}
	buf.Reset()
	if err := WriteDOT(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "MOUT3") {
		t.Fatal("DOT lacks the MOUT label")
	}
}
