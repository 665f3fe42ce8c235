package ir

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteBLIF writes c in the Berkeley Logic Interchange Format, one .names
// table per node, so that logic synthesis tools such as ABC can map the same
// circuit (hcc compares its LUT mapper against ABC's this way). Input bits
// are named NAME_i (element-major, LSB first) and so are output bits.
func WriteBLIF(w io.Writer, c *Circuit) error {
	bw := bufio.NewWriter(w)
	model := c.Name
	if model == "" {
		model = "circuit"
	}
	fmt.Fprintf(bw, ".model %s\n.inputs", blifName(model))
	inName := make(map[NodeID]string)
	for _, bus := range c.Inputs {
		for j, id := range bus.Bits {
			name := fmt.Sprintf("%s_%d", blifName(bus.Name), j)
			inName[id] = name
			fmt.Fprintf(bw, " %s", name)
		}
	}
	fmt.Fprint(bw, "\n.outputs")
	for _, bus := range c.Outputs {
		for j := range bus.Bits {
			fmt.Fprintf(bw, " o_%s_%d", blifName(bus.Name), j)
		}
	}
	fmt.Fprintln(bw)
	wire := func(id NodeID) string {
		if n, ok := inName[id]; ok {
			return n
		}
		return fmt.Sprintf("n%d", id)
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		id := NodeID(i)
		switch n.Op {
		case OpInput:
			continue
		case OpConst0:
			fmt.Fprintf(bw, ".names %s\n", wire(id))
			continue
		case OpConst1:
			fmt.Fprintf(bw, ".names %s\n1\n", wire(id))
			continue
		case OpParity:
			// A chain of two-input XORs through wires nID_pJ: a single table
			// would have 2^(k-1) rows.
			prev := wire(n.In[0])
			for j := 1; j < len(n.In); j++ {
				out := fmt.Sprintf("%s_p%d", wire(id), j)
				if j == len(n.In)-1 {
					out = wire(id)
				}
				fmt.Fprintf(bw, ".names %s %s %s\n01 1\n10 1\n", prev, wire(n.In[j]), out)
				prev = out
			}
			continue
		}
		fanins := n.In
		if _, lin, ok := n.TableView(); ok {
			fanins = lin
		}
		k := len(fanins)
		fmt.Fprint(bw, ".names")
		for _, x := range fanins {
			fmt.Fprintf(bw, " %s", wire(x))
		}
		fmt.Fprintf(bw, " %s\n", wire(id))
		table := nodeTable(n)
		for idx := 0; idx < 1<<k; idx++ {
			if table>>uint(idx)&1 == 0 {
				continue
			}
			for j := 0; j < k; j++ {
				bw.WriteByte('0' + byte(idx>>j&1))
			}
			bw.WriteString(" 1\n")
		}
	}
	for _, bus := range c.Outputs {
		for j, id := range bus.Bits {
			fmt.Fprintf(bw, ".names %s o_%s_%d\n1 1\n", wire(id), blifName(bus.Name), j)
		}
	}
	fmt.Fprintln(bw, ".end")
	return bw.Flush()
}

// nodeTable returns a gate's truth table over its fanins (In[0] least significant).
func nodeTable(n *Node) uint64 {
	if t, _, ok := n.TableView(); ok {
		return t
	}
	k := len(n.In)
	in := make([]uint64, k)
	for j := range in {
		for idx := 0; idx < 1<<k; idx++ {
			if idx>>j&1 == 1 {
				in[j] |= 1 << uint(idx)
			}
		}
	}
	t := EvalGate(n.Op, 0, in)
	if k < 6 {
		t &= 1<<(1<<k) - 1
	}
	return t
}

// blifName keeps BLIF identifiers free of whitespace and comment characters.
func blifName(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == '#' || r == '=' || r == '\\' {
			return '_'
		}
		return r
	}, s)
}
