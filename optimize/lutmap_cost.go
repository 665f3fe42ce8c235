package optimize

import "github.com/hcc-fhe/hcc/ir"

// What a cover costs. Every cost is a whole number of bootstraps but an
// OpSel's: counted at SelectBootstraps (coverCost, the target's reports)
// and priced at the target's fractional selectPrice (coverPrice,
// mapper.area: what LUTMap minimises; lutmap_cmux.go).

// coverCost returns the bootstraps of a mapped circuit on target, an
// OpSel counted at SelectBootstraps as in the target's reports (the
// mapper's objective is coverPrice).
func coverCost(target LUTTarget) func(*ir.Circuit) int {
	m := &mapper{target: target}
	return func(c *ir.Circuit) int {
		n := 0
		for i := range c.Nodes {
			if op := c.Nodes[i].Op; op.IsBootstrapped() {
				n += m.nativeCost(op)
			}
		}
		return n
	}
}

// coverPrice returns what the mapper minimises over a mapped circuit on
// target: coverCost with an OpSel at the target's fractional selectPrice
// (the same number on targets without the gadget or without a
// SelectCoster: every other cost is a whole number of bootstraps).
func coverPrice(target LUTTarget) func(*ir.Circuit) float64 {
	m := &mapper{target: target}
	sel := selectPrice(target)
	return func(c *ir.Circuit) float64 {
		n := 0.0
		for i := range c.Nodes {
			switch op := c.Nodes[i].Op; {
			case op == ir.OpSel:
				n += sel
			case op.IsBootstrapped():
				n += float64(m.nativeCost(op))
			}
		}
		return n
	}
}

// nativeCost is the bootstraps the target spends on a native gate: an
// OpSel costs SelectBootstraps, an OpCMux nothing (lutmap_cmux.go). The
// cover's area counts an OpSel at selectPrice instead (mapper.area).
func (m *mapper) nativeCost(op ir.Op) int {
	switch op {
	case ir.OpNot, ir.OpCMux:
		return 0
	case ir.OpSel:
		if st, ok := m.target.(SelectTarget); ok {
			return st.SelectBootstraps()
		}
	}
	if gc, ok := m.target.(GateCoster); ok {
		return gc.GateBootstraps(op)
	}
	return 1
}

// area is what ct adds to the cover: its cost in bootstraps, or for an
// OpSel the target's fractional selectPrice. Sums of areas are exact
// while every area is a whole number (targets without a fractional
// OpSel), so those covers are the ones integer costs gave.
func (m *mapper) area(ct *cut) float64 {
	if ct.sel {
		return m.selArea
	}
	return float64(ct.cost)
}
