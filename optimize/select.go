package optimize

import "github.com/hcc-fhe/hcc/ir"

// rebuildSelected builds a circuit containing only the nodes with used[i] > 0
// (plus all inputs), emitting each selected gate with emit in topological
// order. nodeOf maps an old node to its new node; it must only be called on
// nodes that precede id and were selected.
func rebuildSelected(c *ir.Circuit, used []int, emit func(b *ir.Builder, id ir.NodeID, nodeOf func(ir.NodeID) ir.NodeID) ir.NodeID) (*ir.Circuit, error) {
	b := ir.NewBuilder(c.Name)
	b.SetFolding(false) // the cover is what the mapper chose; keep it as is
	m := make([]ir.NodeID, len(c.Nodes))
	for i := range m {
		m[i] = -1
	}
	for i := range c.Inputs {
		bus := &c.Inputs[i]
		bits := b.Input(bus.Name, bus.Width, bus.Signed, bus.Dims...)
		for j, id := range bus.Bits {
			m[id] = bits[j]
		}
	}
	nodeOf := func(x ir.NodeID) ir.NodeID {
		if m[x] < 0 {
			panic("optimize: internal error: node used before it was emitted")
		}
		return m[x]
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch {
		case n.Op == ir.OpInput || used[i] == 0:
			continue
		case n.Op == ir.OpConst0 || n.Op == ir.OpConst1:
			m[i] = b.Const(n.Op == ir.OpConst1)
		default:
			b.SetPos(n.Pos)
			m[i] = emit(b, ir.NodeID(i), nodeOf)
		}
	}
	for i := range c.Outputs {
		bus := &c.Outputs[i]
		bits := make([]ir.NodeID, len(bus.Bits))
		for j, id := range bus.Bits {
			bits[j] = nodeOf(id)
		}
		b.Output(bus.Name, bus.Width, bus.Signed, bits, bus.Dims...)
	}
	return b.Build()
}
