package ir

import (
	"strings"
	"testing"
)

// TestUnpackOutputsLength checks that a slice of the wrong length is an
// error (it used to panic with an index out of range when short) and that
// the right length unpacks, signed buses as two's complement.
func TestUnpackOutputsLength(t *testing.T) {
	b := NewBuilder("two")
	x := b.Input("x", 3, false)
	b.Output("u", 2, false, x[:2])
	b.Output("s", 1, true, x[2:])
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 2, 4} {
		v, err := c.UnpackOutputs(make([]bool, n))
		if err == nil || v != nil || !strings.Contains(err.Error(), `circuit "two" has 3 output bits, got `) {
			t.Errorf("%d bits: %v, %v", n, v, err)
		}
	}
	v, err := c.UnpackOutputs([]bool{true, false, true})
	if err != nil || v["u"][0].Int64() != 1 || v["s"][0].Int64() != -1 {
		t.Errorf("3 bits: %v, %v", v, err)
	}
}
