// Package examples holds example HDL programs; its tests compile them and
// check their behaviour against Go models.
package examples

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/stdlib"
)

// tourModel is the Go reading of examples/tour.hdl's comments.
func tourModel(a, b uint8, x int16, v [4]uint8) map[string]int64 {
	wide := uint16(a) + uint16(b) // 9-bit sum
	relu := x
	if x < 0 {
		relu = 0
	}
	squares := [16]uint8{0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225}
	a0, b0, carry := a&1, b&1, uint8(wide>>8)&1
	maj := (a0 & b0) | (carry & (a0 ^ b0))
	var t uint8
	for i := range 4 {
		t += v[i] * 3
	}
	return map[string]int64{
		"sum":   int64(uint8(wide)),
		"carry": int64(carry),
		"r":     int64(relu),
		"sq":    int64(squares[a&15]),
		"m":     int64(maj),
		"acc":   int64(t&15)<<4 | int64(a>>4),
	}
}

func TestTour(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type vec struct {
		a, b uint8
		x    int16
		v    [4]uint8
	}
	vecs := []vec{
		{0, 0, 0, [4]uint8{}},
		{255, 255, -32768, [4]uint8{15, 15, 15, 15}},
		{255, 1, 32767, [4]uint8{1, 2, 3, 4}},
		{128, 128, -1, [4]uint8{0, 15, 0, 15}},
	}
	for len(vecs) < 2500 {
		var v [4]uint8
		for i := range v {
			v[i] = uint8(rng.IntN(16))
		}
		vecs = append(vecs, vec{uint8(rng.Uint32()), uint8(rng.Uint32()), int16(rng.Uint32()), v})
	}
	ins := make([]ir.Values, len(vecs))
	for i, v := range vecs {
		ins[i] = ir.Values{
			"a": {big.NewInt(int64(v.a))}, "b": {big.NewInt(int64(v.b))}, "x": {big.NewInt(int64(v.x))},
			"v": {big.NewInt(int64(v.v[0])), big.NewInt(int64(v.v[1])), big.NewInt(int64(v.v[2])), big.NewInt(int64(v.v[3]))},
		}
	}
	for _, style := range []stdlib.Style{stdlib.SizeOptimized, stdlib.DepthOptimized} {
		t.Run(fmt.Sprint(style), func(t *testing.T) {
			c, err := lang.CompileFile("tour.hdl", lang.Options{Style: style})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintln(c.Inputs[3].TypeString(), c.Outputs[1].TypeString(), c.Outputs[2].TypeString()); got != "u4[4] bit s16\n" {
				t.Errorf("bus types %s, want u4[4] bit s16", got)
			}
			outs, err := c.EvalBatch(ins)
			if err != nil {
				t.Fatal(err)
			}
			fails := 0
			for i, v := range vecs {
				want := tourModel(v.a, v.b, v.x, v.v)
				for name, w := range want {
					if got := outs[i][name][0].Int64(); got != w {
						t.Errorf("tour(%+v): %s = %d, want %d", v, name, got, w)
						fails++
					}
				}
				if fails > 10 {
					t.FailNow()
				}
			}
		})
	}
}
