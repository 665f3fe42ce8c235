package ir

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every error Verify returns.
var ErrInvalid = errors.New("invalid circuit")

// Verify checks every structural invariant of c: known ops with the right
// arity, fanins that exist and precede their consumer (which makes the graph
// acyclic), LUT tables that fit their fan-in, input nodes that match their
// buses, well-formed and uniquely named buses, and outputs that are all driven.
func Verify(c *Circuit) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrInvalid, c.Name, fmt.Sprintf(format, args...))
	}
	n := len(c.Nodes)
	for i := range c.Nodes {
		nd := &c.Nodes[i]
		if nd.Op == OpInvalid || nd.Op >= numOps {
			return fail("node %d has invalid op %v", i, nd.Op)
		}
		if a := nd.Op.Arity(); a >= 0 && len(nd.In) != a {
			return fail("node %d (%v) has %d inputs, want %d", i, nd.Op, len(nd.In), a)
		}
		if nd.Op == OpLUT {
			k := len(nd.In)
			if k < 1 || k > MaxLUTInputs {
				return fail("node %d (LUT) has %d inputs, want 1..%d", i, k, MaxLUTInputs)
			}
			if k < 6 && nd.Table>>(1<<k) != 0 {
				return fail("node %d (LUT%d) has table bits beyond entry %d", i, k, 1<<k)
			}
		}
		if msg := verifyMLUT(c, i); msg != "" {
			return fail("node %d (%v) %s", i, nd.Op, msg)
		}
		if msg := verifySel(c, i); msg != "" {
			return fail("node %d (%v) %s", i, nd.Op, msg)
		}
		if nd.Op == OpParity {
			if k := len(nd.In); k < 2 || k > MaxParityInputs {
				return fail("node %d (PARITY) has %d inputs, want 2..%d", i, k, MaxParityInputs)
			}
			if nd.Table != 0 {
				return fail("node %d (PARITY) has a table", i)
			}
		}
		for _, in := range nd.In {
			if in < 0 || int(in) >= n {
				return fail("node %d (%v) reads missing node %d", i, nd.Op, in)
			}
			if int(in) >= i {
				if cyc := FindCycle(c); cyc != nil {
					return fail("cycle through nodes %v", cyc)
				}
				return fail("node %d (%v) reads node %d, which does not precede it", i, nd.Op, in)
			}
		}
		if nd.Op == OpInput {
			if nd.Bus < 0 || int(nd.Bus) >= len(c.Inputs) {
				return fail("input node %d names missing bus %d", i, nd.Bus)
			}
			bus := &c.Inputs[nd.Bus]
			if nd.Bit < 0 || int(nd.Bit) >= len(bus.Bits) || bus.Bits[nd.Bit] != NodeID(i) {
				return fail("input node %d is not bit %d of bus %q", i, nd.Bit, bus.Name)
			}
		}
	}
	names := map[string]bool{}
	check := func(kind string, bs []Bus) error {
		for bi := range bs {
			b := &bs[bi]
			if b.Name == "" {
				return fail("%s bus %d has no name", kind, bi)
			}
			if names[kind+b.Name] {
				return fail("duplicate %s bus %q", kind, b.Name)
			}
			names[kind+b.Name] = true
			if b.Width < 1 {
				return fail("%s bus %q has width %d", kind, b.Name, b.Width)
			}
			for _, d := range b.Dims {
				if d < 1 {
					return fail("%s bus %q has array dimension %d", kind, b.Name, d)
				}
			}
			if len(b.Bits) != b.Width*b.Elems() {
				return fail("%s bus %q has %d bits, want %d", kind, b.Name, len(b.Bits), b.Width*b.Elems())
			}
			for j, id := range b.Bits {
				if id < 0 || int(id) >= n {
					return fail("%s bus %q bit %d is not driven (node %d)", kind, b.Name, j, id)
				}
				if kind == "input" && (c.Nodes[id].Op != OpInput || int(c.Nodes[id].Bus) != bi || int(c.Nodes[id].Bit) != j) {
					return fail("input bus %q bit %d is node %d, not its input node", b.Name, j, id)
				}
			}
		}
		return nil
	}
	if err := check("input", c.Inputs); err != nil {
		return err
	}
	return check("output", c.Outputs)
}

// FindCycle returns the node indices of one cycle in c's fanin graph, or nil if
// the graph is acyclic. Fanins that point outside the node list are ignored.
func FindCycle(c *Circuit) []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(c.Nodes))
	parent := make([]int, len(c.Nodes))
	type frame struct{ node, next int }
	for root := range c.Nodes {
		if color[root] != white {
			continue
		}
		stack := []frame{{root, 0}}
		color[root] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ins := c.Nodes[top.node].In
			if top.next == len(ins) {
				color[top.node] = black
				stack = stack[:len(stack)-1]
				continue
			}
			m := int(ins[top.next])
			top.next++
			if m < 0 || m >= len(c.Nodes) {
				continue
			}
			switch color[m] {
			case white:
				color[m] = grey
				parent[m] = top.node
				stack = append(stack, frame{m, 0})
			case grey: // back edge top.node -> m closes a cycle
				cyc := []int{m}
				for v := top.node; v != m; v = parent[v] {
					cyc = append(cyc, v)
				}
				return cyc
			}
		}
	}
	return nil
}
