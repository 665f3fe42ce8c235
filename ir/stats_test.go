package ir

import (
	"strings"
	"testing"
)

// twoBootstrapMux is FHEW's price at P = 4 (fhew.LUTTarget.Cost on every
// current set): one bootstrap per gate but NOT, two dependent ones per MUX.
var twoBootstrapMux = Cost{Name: "bootstraps", Of: func(op Op) int {
	switch {
	case op == OpMux:
		return 2
	case op.IsBootstrapped():
		return 1
	}
	return 0
}}

// TestStatsForCountsTheBackendsCost checks that StatsFor counts and chains
// the backend's cost per node (a MUX of two bootstraps is two, in the count
// and along a path), that Stats claims no bootstraps at all, and that the
// count agrees with the sum over the nodes that a run performs.
func TestStatsForCountsTheBackendsCost(t *testing.T) {
	b := NewBuilder("muxes")
	x := b.Input("x", 4, false)
	m := b.Mux(x[0], x[1], x[2])
	m = b.Mux(x[3], m, x[0])
	y := b.Not(b.And(m, x[1]))
	b.Output("y", 2, false, []NodeID{y, b.Xor(x[2], x[3])})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s := c.StatsFor(twoBootstrapMux)
	sum := 0
	for i := range c.Nodes {
		sum += twoBootstrapMux.Of(c.Nodes[i].Op)
	}
	if s.Costly != 6 || s.Costly != sum || s.CostDepth != 5 || s.CostName != "bootstraps" {
		t.Errorf("StatsFor: %d %s (sum over nodes %d), depth %d; want 6, depth 5", s.Costly, s.CostName, sum, s.CostDepth)
	}
	if got := s.String(); !strings.Contains(got, "bootstraps:      6\n") || !strings.Contains(got, "bootstrap-depth: 5\n") {
		t.Errorf("String():\n%s", got)
	}
	mul := Cost{Name: "multiplications", Of: func(op Op) int {
		if op == OpMux || op == OpAnd {
			return 1
		}
		return 0
	}}
	if got := c.StatsFor(mul).String(); !strings.Contains(got, "multiplications: 3\n") || !strings.Contains(got, "multiplication-depth: 3\n") {
		t.Errorf("String() with multiplications:\n%s", got)
	}
	plain := c.Stats()
	if plain.Costly != 0 || plain.CostDepth != 0 || strings.Contains(plain.String(), "bootstrap") {
		t.Errorf("Stats claims a backend's cost:\n%s", plain)
	}
}
