package ir

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// Graph returns c's fanin graph as a gonum directed graph: one graph node per
// circuit node (graph ID = NodeID) and an edge from every fanin to its
// consumer. Fanins outside the node list and self-loops are left out (gonum's
// simple graphs cannot hold self-loops); Sort reports both as errors.
func Graph(c *Circuit) *simple.DirectedGraph {
	g := simple.NewDirectedGraph()
	for i := range c.Nodes {
		g.AddNode(simple.Node(i))
	}
	for i := range c.Nodes {
		for _, in := range c.Nodes[i].In {
			if in < 0 || int(in) >= len(c.Nodes) || int(in) == i {
				continue
			}
			g.SetEdge(simple.Edge{F: simple.Node(in), T: simple.Node(i)})
		}
	}
	return g
}

// IsSorted reports whether every fanin of every node has a smaller index,
// which is the order Circuit.Nodes must have.
func IsSorted(c *Circuit) bool {
	for i := range c.Nodes {
		for _, in := range c.Nodes[i].In {
			if int(in) >= i {
				return false
			}
		}
	}
	return true
}

// CycleError reports that a circuit's fanin graph has cycles. Each cycle is a
// strongly connected component, listed as node indices of the unsorted circuit.
type CycleError struct {
	Cycles [][]NodeID
}

// Error names the nodes on the first cycles (at most three are listed).
func (e *CycleError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "circuit has %d cycle(s)", len(e.Cycles))
	for i, cyc := range e.Cycles {
		if i == 3 {
			sb.WriteString("; ...")
			break
		}
		sb.WriteString("; nodes")
		for j, n := range cyc {
			if j == 8 {
				fmt.Fprintf(&sb, " ... (%d nodes)", len(cyc))
				break
			}
			fmt.Fprintf(&sb, " %%%d", n)
		}
	}
	return sb.String()
}

// sortOrder returns a topological order of c's nodes (old indices), or a
// *CycleError, or an error for fanins that do not exist.
func sortOrder(c *Circuit) ([]NodeID, error) {
	var selfLoops [][]NodeID
	for i := range c.Nodes {
		for _, in := range c.Nodes[i].In {
			if in < 0 || int(in) >= len(c.Nodes) {
				return nil, fmt.Errorf("node %%%d reads missing node %%%d", i, in)
			}
			if int(in) == i {
				selfLoops = append(selfLoops, []NodeID{NodeID(i)})
				break
			}
		}
	}
	if IsSorted(c) {
		order := make([]NodeID, len(c.Nodes))
		for i := range order {
			order[i] = NodeID(i)
		}
		return order, nil
	}
	// SortStabilized (nil order = by ID) makes the result deterministic;
	// topo.Sort would depend on map iteration order.
	sorted, err := topo.SortStabilized(Graph(c), nil)
	var cycles [][]NodeID
	if err != nil {
		var un topo.Unorderable
		if !errors.As(err, &un) {
			return nil, fmt.Errorf("topological sort: %w", err)
		}
		for _, comp := range un {
			ids := make([]NodeID, len(comp))
			for j, n := range comp {
				ids[j] = NodeID(n.ID())
			}
			slices.Sort(ids)
			cycles = append(cycles, ids)
		}
	}
	cycles = append(cycles, selfLoops...)
	if len(cycles) > 0 {
		return nil, &CycleError{Cycles: cycles}
	}
	order := make([]NodeID, len(sorted))
	for i, n := range sorted {
		order[i] = NodeID(n.ID())
	}
	return order, nil
}

// Sort returns a copy of c renumbered into topological order (fanins before
// consumers), as importers need for netlists written in arbitrary order. A
// circuit already in order is returned as an identical copy. Cycles give a
// *CycleError naming their nodes (by index in c).
func Sort(c *Circuit) (*Circuit, error) {
	order, err := sortOrder(c)
	if err != nil {
		return nil, fmt.Errorf("sort circuit %q: %w", c.Name, err)
	}
	newID := make([]NodeID, len(c.Nodes))
	for i, old := range order {
		newID[old] = NodeID(i)
	}
	d := &Circuit{Name: c.Name, Nodes: make([]Node, len(c.Nodes))}
	for i, old := range order {
		n := c.Nodes[old]
		if n.In != nil {
			n.In = make([]NodeID, len(c.Nodes[old].In))
			for j, in := range c.Nodes[old].In {
				n.In[j] = newID[in]
			}
		}
		d.Nodes[i] = n
	}
	remap := func(bs []Bus) []Bus {
		out := cloneBuses(bs)
		for i := range out {
			for j, id := range out[i].Bits {
				if id >= 0 && int(id) < len(newID) {
					out[i].Bits[j] = newID[id]
				}
			}
		}
		return out
	}
	d.Inputs = remap(c.Inputs)
	d.Outputs = remap(c.Outputs)
	return d, nil
}

// Levels returns, for every node, the length of the longest path from an
// input or constant to it, where each node on the path adds cost(node)
// (inputs and constants start at 0 whatever cost says). c must be sorted.
func Levels(c *Circuit, cost func(n *Node) int) []int {
	lv := make([]int, len(c.Nodes))
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if !n.Op.IsGate() {
			continue
		}
		m := 0
		for _, in := range n.In {
			m = max(m, lv[in])
		}
		lv[i] = m + cost(n)
	}
	return lv
}

// UnitCost counts every gate as one level (NOT included): the plain depth.
func UnitCost(*Node) int { return 1 }

// CriticalPath returns the nodes of one longest path under cost, from a
// source (input or constant) to the output bit with the highest level. It
// returns nil for a circuit without outputs. c must be sorted.
func CriticalPath(c *Circuit, cost func(n *Node) int) []NodeID {
	lv := Levels(c, cost)
	end := NodeID(-1)
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			if end < 0 || lv[id] > lv[end] {
				end = id
			}
		}
	}
	if end < 0 {
		return nil
	}
	path := []NodeID{end}
	for cur := end; len(c.Nodes[cur].In) > 0; {
		// Step to a fanin whose level accounts for cur's level.
		want := lv[cur] - cost(&c.Nodes[cur])
		next := c.Nodes[cur].In[0]
		for _, in := range c.Nodes[cur].In {
			if lv[in] == want {
				next = in
				break
			}
		}
		cur = next
		path = append(path, cur)
	}
	slices.Reverse(path)
	return path
}

// Fanout returns the number of consumers of every node, counting each use by a
// gate input and each output bit.
func Fanout(c *Circuit) []int {
	fo := make([]int, len(c.Nodes))
	for i := range c.Nodes {
		for _, in := range c.Nodes[i].In {
			fo[in]++
		}
	}
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			fo[id]++
		}
	}
	return fo
}
