package ir

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteDOT writes c as a Graphviz digraph (`dot -Tsvg`): input bits and
// output bits are boxes named bus[bit], gates are ellipses labelled with
// their op (LUTs with their table), edges run from fanin to consumer, and
// the nodes of one critical path (plain depth) are drawn in red.
func WriteDOT(w io.Writer, c *Circuit) error {
	if err := Verify(c); err != nil {
		return fmt.Errorf("write DOT: %w", err)
	}
	onPath := map[NodeID]bool{}
	for _, id := range CriticalPath(c, UnitCost) {
		onPath[id] = true
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n\trankdir=TB;\n\tnode [fontname=\"Helvetica\"];\n", strconv.Quote(c.Name))
	red := func(id NodeID) string {
		if onPath[id] {
			return ", color=red"
		}
		return ""
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		id := NodeID(i)
		var label, shape string
		switch n.Op {
		case OpInput:
			label = fmt.Sprintf("%s[%d]", c.Inputs[n.Bus].Name, n.Bit)
			shape = "box"
		case OpConst0, OpConst1:
			label = strconv.Itoa(int(n.Op - OpConst0))
			shape = "plaintext"
		case OpLUT, OpMLUT:
			label = fmt.Sprintf("%v%d %#x", n.Op, len(n.In), n.Table)
			shape = "ellipse"
		case OpMOut:
			label = fmt.Sprintf("MOUT%d %#x", len(n.In)-1, n.Table)
			shape = "ellipse"
		default:
			label = n.Op.String()
			shape = "ellipse"
		}
		tip := ""
		if n.Pos != "" {
			tip = ", tooltip=" + strconv.Quote(n.Pos)
		}
		fmt.Fprintf(bw, "\tn%d [label=%s, shape=%s%s%s];\n", i, strconv.Quote(label), shape, tip, red(id))
		for j, in := range n.In {
			attr := ""
			if n.Op == OpMux || n.Op == OpCMux || n.Op == OpLUT || n.Op == OpAndNY || n.Op == OpMLUT || n.Op == OpMOut {
				attr = fmt.Sprintf(" [headlabel=\"%d\"]", j) // operand order matters
			}
			fmt.Fprintf(bw, "\tn%d -> n%d%s;\n", in, i, attr)
		}
	}
	for bi := range c.Outputs {
		bus := &c.Outputs[bi]
		for j, id := range bus.Bits {
			fmt.Fprintf(bw, "\to%d_%d [label=%s, shape=box, style=bold];\n\tn%d -> o%d_%d;\n",
				bi, j, strconv.Quote(fmt.Sprintf("%s[%d]", bus.Name, j)), id, bi, j)
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}
