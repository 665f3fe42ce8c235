package ir

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
)

// seedCircuits are small circuits for the fuzz corpora.
func seedCircuits(t testing.TB) []*Circuit {
	b := NewBuilder("add2")
	x, y := b.Input("x", 2, false), b.Input("y", 2, false)
	c0 := b.And(x[0], y[0])
	b.Output("s", 3, false, []NodeID{b.Xor(x[0], y[0]), b.Xor(b.Xor(x[1], y[1]), c0),
		b.Or(b.And(x[1], y[1]), b.And(c0, b.Xor(x[1], y[1])))})
	add, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return []*Circuit{allOpsCircuit(t), oddCircuit(t), add, selCircuit(t)}
}

// FuzzParseHIR checks that ReadHIR never panics and that whatever it accepts
// writes back to text that reads as the same circuit and the same bytes.
func FuzzParseHIR(f *testing.F) {
	for _, c := range seedCircuits(f) {
		f.Add(writeHIR(f, c))
	}
	f.Add([]byte("hir 1\ncircuit c\ninput a: u2\noutput o: bit\n%1 = NOT %2\n%2 = INPUT a 1\n%0 = INPUT a 0\nbits o = %1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadHIR(bytes.NewReader(data), "fuzz.hir")
		if err != nil {
			return
		}
		text := writeHIR(t, c)
		d, err := ReadHIR(bytes.NewReader(text), "again.hir")
		if err != nil {
			t.Fatalf("cannot read back: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(c, d) {
			t.Fatalf("circuit changed:\n%s", text)
		}
		if again := writeHIR(t, d); !bytes.Equal(text, again) {
			t.Fatalf("text changed:\n%s\n---\n%s", text, again)
		}
	})
}

// FuzzParseBristol checks that ReadBristol never panics and that whatever it
// accepts survives an export and re-import with the same function.
func FuzzParseBristol(f *testing.F) {
	for _, c := range seedCircuits(f) {
		var buf bytes.Buffer
		if err := WriteBristol(&buf, c); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("3 8\n2 2 2\n1 2\n\n1 1 7 6 EQW\n4 2 0 1 2 3 4 5 MAND\n2 1 4 5 7 XOR\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadBristol(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		if err := Verify(c); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteBristol(&buf, c); err != nil {
			t.Fatal(err)
		}
		d, err := ReadBristol(&buf, "export.txt")
		if err != nil {
			t.Fatalf("cannot read back: %v\n%s", err, buf.String())
		}
		rng := rand.New(rand.NewPCG(3, 4))
		in := randomWords(rng, c.NumInputBits())
		oc, od := c.EvalBits(in), d.EvalBits(in)
		if !reflect.DeepEqual(oc, od) {
			t.Fatalf("function changed:\n%s", buf.String())
		}
	})
}
