package stdlib

import (
	"testing"
)

// TestStyleTradeoff checks that the two styles deliver what they promise:
// DepthOptimized has a strictly lower AND-depth, SizeOptimized strictly
// fewer gates, for 32- and 64-bit add and multiply.
func TestStyleTradeoff(t *testing.T) {
	for _, name := range []string{"Add", "Mul"} {
		var op opCase
		for _, o := range opCases {
			if o.name == name {
				op = o
			}
		}
		for _, n := range []int{32, 64} {
			ds, gs := andDepth(buildCase(t, op, n, SizeOptimized))
			dd, gd := andDepth(buildCase(t, op, n, DepthOptimized))
			t.Logf("%s/n=%d: size style depth %d gates %d; depth style depth %d gates %d", name, n, ds, gs, dd, gd)
			if dd >= ds {
				t.Errorf("%s/n=%d: depth style AND-depth %d, not below size style's %d", name, n, dd, ds)
			}
			if gs >= gd {
				t.Errorf("%s/n=%d: size style has %d gates, not below depth style's %d", name, n, gs, gd)
			}
		}
	}
}
