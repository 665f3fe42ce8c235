package lang

import (
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

// TestOpCostMultiply: the up-front reservation for "*" bounds the gates
// stdlib.Mul really adds in both styles (measured about 3w^2), without
// reserving so much more that a multiply that fits is refused: at most
// 1.5 times the measured count at 256 bits.
func TestOpCostMultiply(t *testing.T) {
	for _, st := range []stdlib.Style{stdlib.SizeOptimized, stdlib.DepthOptimized} {
		for _, w := range []int{1, 2, 8, 33, 64, 128, 256} {
			b := ir.NewBuilder("m")
			x := b.Input("a", w, false)
			y := b.Input("b", w, false)
			before := b.Len()
			stdlib.Mul(b, x, y, st)
			added := b.Len() - before
			if added > opCost("*", w) {
				t.Errorf("style %v, w = %d: %d gates, opCost reserves only %d", st, w, added, opCost("*", w))
			}
			if w == 256 && float64(opCost("*", w)) > 1.5*float64(added) {
				t.Errorf("style %v, w = %d: %d gates, opCost reserves %d (over 1.5x: multiplies that fit are refused)", st, w, added, opCost("*", w))
			}
		}
	}
}
