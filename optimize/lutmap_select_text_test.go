package optimize

import (
	"strings"
	"testing"
)

// TestLUTChoiceStringNamesPricedSELs checks what a candidate line says
// about a priced count: a set's own mapping prices its SELs, an estimate
// names the set whose SELs were priced (the set itself may have none), and
// a count without SELs shows no priced figure.
func TestLUTChoiceStringNamesPricedSELs(t *testing.T) {
	own := LUTChoice{Name: "CMUX", Bootstraps: 10, Priced: 9.5, Cost: 9.5 * 0.8, OK: true}
	est := LUTChoice{Name: "PLAIN", Bootstraps: 10, Priced: 9.5, Cost: 9.5 * 0.8, Skipped: true, EstimatedFrom: "CMUX"}
	plain := LUTChoice{Name: "PLAIN", Bootstraps: 10, Priced: 10, Cost: 8, OK: true}
	for _, tc := range []struct {
		ch        LUTChoice
		want, not string
	}{
		{own, "10 bootstraps (priced 9.5: SELs at their measured cost) × 0.80 = 8 NAND-equivalents", "CMUX's"},
		{est, "at least 10 bootstraps (priced 9.5: CMUX's SELs at their measured cost) × 0.80", "PLAIN's"},
		{plain, "10 bootstraps × 0.80 = 8 NAND-equivalents", "priced"},
	} {
		s := tc.ch.String()
		if !strings.Contains(s, tc.want) || strings.Contains(s, tc.not) {
			t.Errorf("%q: want %q in it and no %q", s, tc.want, tc.not)
		}
	}
}
