package optimize

import "github.com/hcc-fhe/hcc/ir"

// rebuild copies c node by node through a fresh ir.Builder, mapping each old
// node to a new one with emit. The builder's folding and hashing do the
// simplification; emit decides how each node is re-expressed from its
// already-mapped fanins. Inputs and outputs keep their names, types and order.
func rebuild(c *ir.Circuit, emit func(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID) (*ir.Circuit, error) {
	b := ir.NewBuilder(c.Name)
	var in []ir.NodeID
	return rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[i]
		in = in[:0]
		for _, x := range n.In {
			in = append(in, m[x])
		}
		return emit(b, n, in)
	})
}

// rebuildMapped copies c through a fresh Builder as rebuild does, but emit sees
// the whole old-to-new map m (entries for nodes before i are final), so it
// can re-express node i from any earlier node, not just its own fanins.
func rebuildMapped(c *ir.Circuit, b *ir.Builder, emit func(i ir.NodeID, m []ir.NodeID) ir.NodeID) (*ir.Circuit, error) {
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
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op == ir.OpInput {
			continue
		}
		b.SetPos(n.Pos)
		m[i] = emit(ir.NodeID(i), m)
	}
	for i := range c.Outputs {
		bus := &c.Outputs[i]
		bits := make([]ir.NodeID, len(bus.Bits))
		for j, id := range bus.Bits {
			bits[j] = m[id]
		}
		b.Output(bus.Name, bus.Width, bus.Signed, bits, bus.Dims...)
	}
	return b.Build()
}

// emitSame re-creates n through the builder's folding constructors.
func emitSame(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID {
	switch n.Op {
	case ir.OpConst0:
		return b.Const(false)
	case ir.OpConst1:
		return b.Const(true)
	case ir.OpNot:
		return b.Not(in[0])
	case ir.OpAnd:
		return b.And(in[0], in[1])
	case ir.OpOr:
		return b.Or(in[0], in[1])
	case ir.OpXor:
		return b.Xor(in[0], in[1])
	case ir.OpNand:
		return b.Nand(in[0], in[1])
	case ir.OpNor:
		return b.Nor(in[0], in[1])
	case ir.OpXnor:
		return b.Xnor(in[0], in[1])
	case ir.OpAndNY:
		return b.AndNY(in[0], in[1])
	case ir.OpMux:
		return b.Mux(in[0], in[1], in[2])
	case ir.OpLUT:
		return foldLUT(b, n.Table, in)
	case ir.OpParity:
		return b.Parity(in...)
	case ir.OpMLUT, ir.OpMOut, ir.OpSel, ir.OpCMux: // a mapped group (ir/mlut.go, ir/sel.go): kept as it is
		return b.Raw(ir.Node{Op: n.Op, In: append([]ir.NodeID(nil), in...), Table: n.Table, Pos: n.Pos})
	}
	panic("optimize: internal error: unexpected op " + n.Op.String())
}
