package runtime

import (
	"sync/atomic"

	"github.com/hcc-fhe/hcc/ir"
)

// schedule is the static dataflow information of a circuit: who consumes
// each node and how many fanins each gate still waits for.
type schedule struct {
	consumers [][]ir.NodeID  // gates reading each node (once per distinct reader)
	pending   []atomic.Int32 // fanins not yet computed, per node
	remaining []atomic.Int32 // consumers not yet run, per node; outputs hold one extra
	initial   []ir.NodeID    // gates and constants whose fanins are all inputs
	gates     int            // nodes the run evaluates (gates and constants)
	costly    int            // summed backend cost of all nodes
}

// newSchedule builds c's dataflow tables; with keepInputs, input ciphertexts
// are never released (the caller owns them).
func newSchedule(c *ir.Circuit, cost func(ir.Op) int, keepInputs bool) *schedule {
	s := &schedule{
		consumers: make([][]ir.NodeID, len(c.Nodes)),
		pending:   make([]atomic.Int32, len(c.Nodes)),
		remaining: make([]atomic.Int32, len(c.Nodes)),
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op == ir.OpInput {
			continue
		}
		s.gates++
		s.costly += cost(n.Op)
		waiting := int32(0)
		for j, x := range n.In {
			s.remaining[x].Add(1)
			if dup(n.In[:j], x) {
				continue // one wake-up per distinct fanin
			}
			if c.Nodes[x].Op != ir.OpInput {
				waiting++
				s.consumers[x] = append(s.consumers[x], ir.NodeID(i))
			}
		}
		s.pending[i].Store(waiting)
		if waiting == 0 {
			s.initial = append(s.initial, ir.NodeID(i))
		}
	}
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			s.remaining[id].Add(1) // never released: the caller reads it
		}
	}
	for i := range c.Nodes {
		if c.Nodes[i].Op == ir.OpInput && (keepInputs || s.remaining[i].Load() == 0) {
			// The caller owns its input ciphertexts (and an unread input
			// has no consumer to release it).
			s.remaining[i].Add(1)
		}
	}
	return s
}

func dup(xs []ir.NodeID, x ir.NodeID) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// release records that one consumer of x has run and reports whether x's
// ciphertext is now dead.
func (s *schedule) release(x ir.NodeID) bool {
	return s.remaining[x].Add(-1) == 0
}
