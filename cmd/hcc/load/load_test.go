package load

import (
	"bytes"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

func TestParseValue(t *testing.T) {
	u8 := &ir.Bus{Name: "a", Width: 8}
	s8 := &ir.Bus{Name: "x", Width: 8, Signed: true}
	u200 := &ir.Bus{Name: "w", Width: 200}
	big200, _ := new(big.Int).SetString("ff"+strings.Repeat("0", 48), 16)
	cases := []struct {
		bus  *ir.Bus
		in   string
		want *big.Int // nil: an error containing errSub
		errS string
	}{
		{u8, "5", big.NewInt(5), ""},
		{u8, "0x7f", big.NewInt(127), ""},
		{u8, "0XFF", big.NewInt(255), ""},
		{u8, "0b1010_1010", big.NewInt(170), ""},
		{u8, "0o17", big.NewInt(15), ""},
		{u8, "255", big.NewInt(255), ""},
		{u8, "256", nil, "out of range [0, 255]"},
		{u8, "-1", nil, "out of range [0, 255]"},
		{u8, "0x100", nil, "does not fit in 8 bits"},
		{u8, "0x", nil, "bad number"},
		{u8, "", nil, "bad number"},
		{u8, "0x-1", nil, "bad number"},
		{u8, "1.5", nil, "bad number"},
		{s8, "-128", big.NewInt(-128), ""},
		{s8, "127", big.NewInt(127), ""},
		{s8, "-129", nil, "out of range [-128, 127]"},
		{s8, "0xff", big.NewInt(-1), ""},
		{s8, "0x80", big.NewInt(-128), ""},
		{s8, "0x7f", big.NewInt(127), ""},
		{u200, "0x" + "ff" + strings.Repeat("0", 48), big200, ""},
		{u200, "0x1" + strings.Repeat("0", 50), nil, "does not fit in 200 bits"},
	}
	for _, tc := range cases {
		got, err := ParseValue(tc.in, tc.bus)
		if tc.want == nil {
			if err == nil || !strings.Contains(err.Error(), tc.errS) {
				t.Errorf("ParseValue(%q, %s) = %v, %v; want error with %q", tc.in, tc.bus.TypeString(), got, err, tc.errS)
			}
			continue
		}
		if err != nil || got.Cmp(tc.want) != 0 {
			t.Errorf("ParseValue(%q, %s) = %v, %v; want %v", tc.in, tc.bus.TypeString(), got, err, tc.want)
		}
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		bus      ir.Bus
		v        int64
		dec, hex string
	}{
		{ir.Bus{Width: 1}, 1, "1", "0x1"},
		{ir.Bus{Width: 8}, 10, "10", "0x0a"},
		{ir.Bus{Width: 9}, 10, "10", "0x00a"},
		{ir.Bus{Width: 16, Signed: true}, -5, "-5", "0xfffb"},
	} {
		dec, hex := FormatValue(&tc.bus, big.NewInt(tc.v))
		if dec != tc.dec || hex != tc.hex {
			t.Errorf("FormatValue(%s, %d) = %s %s, want %s %s", tc.bus.TypeString(), tc.v, dec, hex, tc.dec, tc.hex)
		}
	}
}

// TestHDLThroughHIR compiles HDL (whose nodes carry source positions) in
// both styles and checks the exact .hir round trip and the simulated values.
func TestHDLThroughHIR(t *testing.T) {
	for _, style := range []stdlib.Style{stdlib.SizeOptimized, stdlib.DepthOptimized} {
		c, err := Circuit("../../../examples/tour.hdl", Options{Style: style})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := ir.WriteHIR(&buf, c); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		if !strings.Contains(text, " @ ../../../examples/tour.hdl:") {
			t.Errorf("no source positions in the .hir text")
		}
		d, err := ir.ReadHIR(strings.NewReader(text), "tour.hir")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c, d) {
			t.Fatalf("%v: circuit changed in the .hir round trip", style)
		}
		in, err := Inputs(c, []string{"a=5", "b=0x7f", "x=-3", "v=1,2,3,4"})
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.Eval(in)
		if err != nil {
			t.Fatal(err)
		}
		want := "sum = 132 (0x84)\ncarry = 0 (0x0)\nr = 0 (0x0000)\nsq = 25 (0x19)\nm = 1 (0x1)\nacc = 224 (0xe0)\n"
		if got := Outputs(d, out); got != want {
			t.Errorf("%v: got\n%s\nwant\n%s", style, got, want)
		}
	}
}

func TestInputsErrors(t *testing.T) {
	b := ir.NewBuilder("c")
	x := b.Input("x", 4, false, 2)
	b.Output("o", 4, false, x[:4])
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, `missing input "x" (u4[2])`},
		{[]string{"x=1"}, `input "x" (u4[2]) needs 2 value(s), got 1`},
		{[]string{"x=1,16"}, `input "x" (u4[2]) element 1: value 16 is out of range [0, 15]`},
		{[]string{"y=1"}, `unknown input "y" (inputs: x: u4[2])`},
		{[]string{"=1"}, `bad input "=1": want name=value`},
		{[]string{"x=1,2", "x=1,2"}, `input "x" given twice`},
	} {
		if _, err := Inputs(c, tc.args); err == nil || err.Error() != tc.want {
			t.Errorf("Inputs(%q) = %v, want %q", tc.args, err, tc.want)
		}
	}
	if v, err := Inputs(c, []string{" x = 3, 0xf "}); err != nil || v["x"][1].Int64() != 15 {
		t.Errorf("spaces: %v %v", v, err)
	}
}
