package optimize

import "github.com/hcc-fhe/hcc/ir"

// rebuildSelected builds a circuit containing only the nodes with used[i] > 0
// (plus all inputs), emitting each selected gate with emit in topological
// order. nodeOf maps an old node to its new node; it must only be called on
// nodes that precede id and were selected.
func rebuildSelected(c *ir.Circuit, used []int, emit func(b *ir.Builder, id ir.NodeID, nodeOf func(ir.NodeID) ir.NodeID) ir.NodeID) (*ir.Circuit, error) {
	b := ir.NewBuilder(c.Name)
	b.SetFolding(false) // the cover is what the mapper chose; keep it as is
	return rebuildMapped(c, b, func(id ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[id]
		switch {
		case used[id] == 0:
			return -1
		case n.Op == ir.OpConst0 || n.Op == ir.OpConst1:
			return b.Const(n.Op == ir.OpConst1)
		}
		return emit(b, id, func(x ir.NodeID) ir.NodeID {
			if m[x] < 0 {
				panic("optimize: internal error: node used before it was emitted")
			}
			return m[x]
		})
	})
}
