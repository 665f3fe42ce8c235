package ir

import (
	"fmt"
	"math/bits"
	"strings"
)

// Stats summarises a circuit's size and depth, as printed by `hcc stats`.
type Stats struct {
	Name string
	// Inputs and Outputs are the numbers of input and output bits.
	Inputs, Outputs int
	// Nodes is len(Circuit.Nodes); Gates counts every node but inputs and constants.
	Nodes, Gates int
	// Count is the number of nodes of each op, indexed by Op.
	Count [numOps]int
	// Depth is the longest input-to-output path counting every gate (NOT included).
	Depth int
	// AndDepth is the multiplicative depth: the longest path counting only
	// gates of algebraic degree two or more over GF(2), the ones that cost a
	// ciphertext multiplication in BGV/BFV-style schemes. XOR, XNOR, PARITY and NOT are
	// free; AND, OR, NAND, NOR, ANDNY, MUX and CMUX count one (SEL, the identity, zero); a LUT counts zero if
	// its function is affine (an XOR of inputs, possibly negated) and one
	// otherwise, even when its degree is above two: a LUT is one bootstrap in
	// FHEW, and for BGV a LUT must be lowered before its real depth is known.
	AndDepth int
	// CostName, Costly and CostDepth are a backend's price of the circuit,
	// set by StatsFor and zero from Stats: the plural name of the backend's
	// costly operation ("bootstraps" for FHEW), their number (Cost.Of summed
	// over the nodes), and the longest path counting them (sequential
	// rounds with unbounded parallelism; a MUX that FHEW evaluates as two
	// dependent bootstraps counts two). There is no backend-free count of
	// bootstraps: how many a node takes depends on the parameter set.
	CostName  string
	Costly    int
	CostDepth int
}

// Cost is a backend's price of a circuit: a node of op takes Of(op) of the
// backend's costly operations, which Name names in the plural. FHEW's is
// fhew.LUTTarget.Cost (bootstraps, two for a MUX on every current set),
// BGV's counts multiplications; backend.Capabilities.NodeCost gives any
// evaluator's.
type Cost struct {
	Name string
	Of   func(op Op) int
}

// Node is Of as a per-node cost function, for Levels and CriticalPath.
func (c Cost) Node(n *Node) int { return c.Of(n.Op) }

// IsAffineLUT reports whether the truth table of a k-input LUT is an affine
// function (a XOR of some inputs and possibly the constant 1), i.e. whether
// its algebraic normal form has no monomial of degree two or more.
func IsAffineLUT(table uint64, k int) bool {
	anf := ANF(table, k)
	for m := uint(0); m < 1<<uint(k); m++ {
		if anf>>m&1 == 1 && bits.OnesCount(m) >= 2 {
			return false
		}
	}
	return true
}

// ANF returns the algebraic normal form of a k-input truth table (bit i =
// f(i), input j is bit j of i): bit m of the result is the coefficient of the
// monomial that ANDs the inputs in mask m. It is the Möbius transform, an
// involution, so ANF(ANF(t, k), k) == t.
func ANF(table uint64, k int) uint64 {
	if k < 6 {
		table &= uint64(1)<<(1<<uint(k)) - 1
	}
	// Butterfly over each input: coefficient(m | bit) ^= coefficient(m).
	masks := [6]uint64{0x5555555555555555, 0x3333333333333333, 0x0f0f0f0f0f0f0f0f,
		0x00ff00ff00ff00ff, 0x0000ffff0000ffff, 0x00000000ffffffff}
	for j := 0; j < k; j++ {
		sh := uint(1) << uint(j)
		table ^= (table & masks[j]) << sh
	}
	return table
}

// AndCost is the cost function of Stats.AndDepth: 1 for gates of degree two
// or more, 0 for XOR, XNOR, PARITY, NOT and affine LUTs.
func AndCost(n *Node) int {
	switch n.Op {
	case OpNot, OpXor, OpXnor, OpParity, OpSel:
		return 0
	case OpLUT, OpMLUT, OpMOut:
		if t, in, _ := n.TableView(); IsAffineLUT(t, len(in)) {
			return 0
		}
	}
	return 1
}

// Stats measures c's size and depth, which need no backend; c must be
// sorted (Verify passes). StatsFor adds a backend's cost.
func (c *Circuit) Stats() Stats {
	s := Stats{Name: c.Name, Inputs: c.NumInputBits(), Outputs: c.NumOutputBits(), Nodes: len(c.Nodes)}
	for i := range c.Nodes {
		op := c.Nodes[i].Op
		if op < numOps {
			s.Count[op]++
		}
		if op.IsGate() {
			s.Gates++
		}
	}
	s.Depth = c.outputDepth(UnitCost)
	s.AndDepth = c.outputDepth(AndCost)
	return s
}

// StatsFor is Stats with cost's price of c (CostName, Costly, CostDepth):
// the counts every report of the same circuit and backend shares.
func (c *Circuit) StatsFor(cost Cost) Stats {
	s := c.Stats()
	s.CostName = cost.Name
	for op, k := range s.Count {
		if k > 0 {
			s.Costly += k * cost.Of(Op(op))
		}
	}
	s.CostDepth = c.outputDepth(cost.Node)
	return s
}

// outputDepth is the largest level of an output bit under cost.
func (c *Circuit) outputDepth(cost func(*Node) int) int {
	lv := Levels(c, cost)
	d := 0
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			d = max(d, lv[id])
		}
	}
	return d
}

// String renders the statistics as aligned "key: value" lines, ops with a
// zero count left out, and the backend's cost when StatsFor set it
// ("bootstraps: 85", "bootstrap-depth: 9").
func (s Stats) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "circuit:         %s\n", s.Name)
	fmt.Fprintf(&sb, "inputs:          %d bits\n", s.Inputs)
	fmt.Fprintf(&sb, "outputs:         %d bits\n", s.Outputs)
	fmt.Fprintf(&sb, "nodes:           %d\n", s.Nodes)
	fmt.Fprintf(&sb, "gates:           %d\n", s.Gates)
	for op := OpConst0; op < numOps; op++ {
		if s.Count[op] > 0 {
			fmt.Fprintf(&sb, "  %-14s %d\n", op.String()+":", s.Count[op])
		}
	}
	fmt.Fprintf(&sb, "depth:           %d\n", s.Depth)
	fmt.Fprintf(&sb, "and-depth:       %d\n", s.AndDepth)
	if s.CostName != "" {
		unit := strings.TrimSuffix(s.CostName, "s")
		fmt.Fprintf(&sb, "%-16s %d\n", s.CostName+":", s.Costly)
		fmt.Fprintf(&sb, "%-16s %d\n", unit+"-depth:", s.CostDepth)
	}
	return sb.String()
}
