package optimize

import "github.com/hcc-fhe/hcc/ir"

// DCE removes every node that no output depends on. Input nodes stay, so the
// circuit's interface does not change.
var DCE = Pass{
	Name: "dce",
	Doc:  "requires a verified circuit; ensures every gate reaches an output",
	Run:  deadGateRemoval,
}

func deadGateRemoval(c *ir.Circuit) (*ir.Circuit, error) {
	live := make([]bool, len(c.Nodes))
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			live[id] = true
		}
	}
	// Nodes are in topological order, so one backward sweep marks every fanin.
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		if live[i] || c.Nodes[i].Op == ir.OpInput {
			live[i] = true
			for _, x := range c.Nodes[i].In {
				live[x] = true
			}
		}
	}
	d := &ir.Circuit{Name: c.Name}
	m := make([]ir.NodeID, len(c.Nodes))
	for i := range c.Nodes {
		if !live[i] {
			continue
		}
		n := c.Nodes[i]
		n.In = make([]ir.NodeID, len(c.Nodes[i].In))
		for j, x := range c.Nodes[i].In {
			n.In[j] = m[x]
		}
		m[i] = ir.NodeID(len(d.Nodes))
		d.Nodes = append(d.Nodes, n)
	}
	remap := func(bs []ir.Bus) []ir.Bus {
		out := make([]ir.Bus, len(bs))
		for i, bus := range bs {
			out[i] = bus
			out[i].Dims = append([]int(nil), bus.Dims...)
			out[i].Bits = make([]ir.NodeID, len(bus.Bits))
			for j, id := range bus.Bits {
				out[i].Bits[j] = m[id]
			}
		}
		return out
	}
	d.Inputs = remap(c.Inputs)
	d.Outputs = remap(c.Outputs)
	return d, ir.Verify(d)
}
