package ir

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// oddCircuit has names and positions that need quoting, arrays, signed
// buses and a LUT: the corners of the .hir syntax.
func oddCircuit(t testing.TB) *Circuit {
	b := NewBuilder("odd name \"q\"")
	x := b.Input("x y", 2, true, 2, 3)
	z := b.Input("z", 1, false)
	b.SetPos("dir/my file.hdl:3:4")
	g := b.And(x[0], z[0])
	b.SetPos("a.hdl:1:2")
	h := b.LUT(0x6a, x[3], g, x[11])
	b.SetPos("\"quoted\"\t\n")
	k := b.Xnor(h, x[5])
	b.SetPos("")
	b.Output("o", 3, true, []NodeID{g, h, k, k, b.Const(true), z[0]}, 2)
	b.Output("σ", 1, false, []NodeID{b.Const(false)})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeHIR(t testing.TB, c *Circuit) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHIR(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkHIRRoundTrip asserts parse(write(c)) == c and that writing again
// gives identical bytes.
func checkHIRRoundTrip(t *testing.T, c *Circuit) {
	t.Helper()
	text := writeHIR(t, c)
	d, err := ReadHIR(bytes.NewReader(text), "rt.hir")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !reflect.DeepEqual(c, d) {
		t.Fatalf("circuit changed in the round trip:\n%s\n---\n%s", text, writeHIR(t, d))
	}
	if again := writeHIR(t, d); !bytes.Equal(text, again) {
		t.Fatalf("text changed:\n%s\n---\n%s", text, again)
	}
}

func TestHIRRoundTrip(t *testing.T) {
	t.Run("adder", func(t *testing.T) { checkHIRRoundTrip(t, rippleAdder(t, 8)) })
	t.Run("allops", func(t *testing.T) { checkHIRRoundTrip(t, allOpsCircuit(t)) })
	t.Run("odd", func(t *testing.T) { checkHIRRoundTrip(t, oddCircuit(t)) })
	t.Run("aes_128", func(t *testing.T) { checkHIRRoundTrip(t, loadShared(t, "aes_128.txt")) })
}

func TestHIRText(t *testing.T) {
	b := NewBuilder("tiny")
	x := b.Input("x", 2, false)
	b.SetPos("t.hdl:1:5")
	g := b.LUT(0x6, x[0], x[1])
	b.Output("o", 1, false, []NodeID{g})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := "hir 1\ncircuit tiny\ninput x: u2\noutput o: bit\n" +
		"%0 = INPUT x 0\n%1 = INPUT x 1\n%2 = LUT 0x6 %0 %1 @ t.hdl:1:5\nbits o = %2\n"
	if got := string(writeHIR(t, c)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestHIRUnsorted reads nodes written out of order, with comments and CRLF.
func TestHIRUnsorted(t *testing.T) {
	src := "# a comment\r\nhir 1\r\ncircuit s\ninput a: u2\noutput o: u2\n\n" +
		"%0 = XOR %3 %1\n%3 = NOT %2\n%2 = INPUT a 1\n%1 = INPUT a 0\nbits o = %0 %3\n"
	c, err := ReadHIR(strings.NewReader(src), "s.hir")
	if err != nil {
		t.Fatal(err)
	}
	if !IsSorted(c) {
		t.Fatal("not sorted")
	}
	for a := 0; a < 4; a++ {
		out := c.EvalBits([]uint64{uint64(a & 1), uint64(a >> 1)})
		out[0], out[1] = out[0]&1, out[1]&1 // lane 0 only
		nb := 1 - a>>1
		want := []uint64{uint64(a&1 ^ nb), uint64(nb)}
		if !reflect.DeepEqual(out, want) {
			t.Errorf("a=%d: got %v, want %v", a, out, want)
		}
	}
}

func TestReadHIRErrors(t *testing.T) {
	const head = "hir 1\ncircuit c\ninput a: u2\noutput o: bit\n%0 = INPUT a 0\n%1 = INPUT a 1\n"
	cases := []struct{ name, src, want string }{
		{"empty", "", "e.hir:1: empty file"},
		{"version", "hir 2\n", `e.hir:1: first line must be "hir 1"`},
		{"no circuit", "hir 1\n", `e.hir:2: missing "circuit NAME"`},
		{"two circuits", "hir 1\ncircuit a\ncircuit b\n", "e.hir:3: second circuit line (first on line 2)"},
		{"bad type", "hir 1\ncircuit c\ninput a: u0\n", `e.hir:3: bad type "u0"`},
		{"bad dims", "hir 1\ncircuit c\ninput a: u2[3\n", `e.hir:3: bad array dimensions`},
		{"huge type", "hir 1\ncircuit c\ninput a: u1024[99999][99999]\n", "more than 16777216 bits"},
		{"dup bus", "hir 1\ncircuit c\ninput a: u2\ninput a: bit\n", `e.hir:4: duplicate input "a" (first on line 3)`},
		{"unknown line", head + "wat\n", `e.hir:7: unknown line "wat"`},
		{"unknown op", head + "%2 = FOO %0\n", `e.hir:7: unknown op "FOO"`},
		{"arity", head + "%2 = AND %0\n", "e.hir:7: AND takes 2 inputs, got 1"},
		{"lut k", head + "%2 = LUT 0x1\n", "e.hir:7: LUT has 0 inputs"},
		{"lut table", head + "%2 = LUT 0x10 %0\n", "e.hir:7: LUT1 table 0x10 has bits beyond entry 2"},
		{"lut hex", head + "%2 = LUT 12 %0\n", "e.hir:7: LUT wants a hex truth table"},
		{"bad ref", head + "%2 = NOT 0\n", `e.hir:7: want a node reference %ID, got "0"`},
		{"undefined", head + "%2 = NOT %7\nbits o = %2\n", "e.hir:7: node %2 reads undefined node %7"},
		{"id range", head + "%9 = NOT %0\n", "e.hir:7: node ID %9 out of range"},
		{"twice", head + "%1 = NOT %0\n", "e.hir:7: node %1 defined twice (first on line 6)"},
		{"no bits", head + "%2 = NOT %0\n", `e.hir:4: output "o" has no bits line`},
		{"bits count", head + "bits o = %0 %1\n", `e.hir:7: output "o" (bit) needs 1 bits, got 2`},
		{"bits twice", head + "bits o = %0\nbits o = %1\n", `e.hir:8: second bits line for output "o"`},
		{"bits unknown", head + "bits p = %0\n", `e.hir:7: bits for undeclared output "p"`},
		{"input bus", head + "%2 = INPUT b 0\n", `e.hir:7: INPUT names undeclared input "b"`},
		{"input count", "hir 1\ncircuit c\ninput a: u2\n%0 = INPUT a 0\n", `e.hir:3: input "a" (u2) has 2 bits but 1 INPUT nodes`},
		{"input bit", "hir 1\ncircuit c\ninput a: u2\n%0 = INPUT a 0\n%1 = INPUT a 0\n", `e.hir:5: bit 0 of input "a" is also node %0 (line 4)`},
		{"input range", "hir 1\ncircuit c\ninput a: u2\n%0 = INPUT a 0\n%1 = INPUT a 2\n", `e.hir:5: bit 2 of input "a" (u2) does not exist`},
		{"cycle", head + "%2 = NOT %3\n%3 = NOT %2\nbits o = %2\n", "e.hir:7: nodes form a cycle (lines 7, 8)"},
		{"self loop", head + "%2 = AND %2 %0\nbits o = %2\n", "e.hir:7: nodes form a cycle (lines 7)"},
		{"quote", head + "%2 = NOT %0 @ \"abc\nbits o = %2\n", "e.hir:7: bad quoted position"},
		{"pos on header", "hir 1\ncircuit c @ x\n", "e.hir:2: only node lines take an @ position"},
		{"leading zero", head + "%02 = NOT %0\n", `e.hir:7: bad node ID "02"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadHIR(strings.NewReader(tc.src), "e.hir")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			}
		})
	}
}

func TestParseType(t *testing.T) {
	for _, s := range []string{"bit", "u8", "s1", "s16", "u4[4]", "bit[2][3]", "s1024[1]"} {
		w, signed, dims, err := ParseType(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		b := Bus{Width: w, Signed: signed, Dims: dims}
		if got := b.TypeString(); got != s {
			t.Errorf("ParseType(%q).TypeString() = %q", s, got)
		}
	}
	for _, s := range []string{"", "u", "x8", "u-1", "u+3", "u08", "u8[0]", "u8[", "u8]", "u8[2]x", "bit8"} {
		if _, _, _, err := ParseType(s); err == nil {
			t.Errorf("ParseType(%q) accepted", s)
		}
	}
}
