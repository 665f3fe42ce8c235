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
	// free; AND, OR, NAND, NOR, ANDNY and MUX count one; a LUT counts zero if
	// its function is affine (an XOR of inputs, possibly negated) and one
	// otherwise, even when its degree is above two: a LUT is one bootstrap in
	// FHEW, and for BGV a LUT must be lowered before its real depth is known.
	AndDepth int
	// Bootstraps counts every node but NOT, constants and inputs: the number
	// of bootstrapped gates an FHEW-style backend evaluates.
	Bootstraps int
	// BootstrapDepth is the longest path counting only bootstrapped gates,
	// i.e. the number of sequential bootstrap rounds with unbounded parallelism.
	BootstrapDepth int
}

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
	case OpNot, OpXor, OpXnor, OpParity:
		return 0
	case OpLUT:
		if IsAffineLUT(n.Table, len(n.In)) {
			return 0
		}
	}
	return 1
}

// BootstrapCost counts 1 for every bootstrapped gate (Op.IsBootstrapped).
func BootstrapCost(n *Node) int {
	if n.Op.IsBootstrapped() {
		return 1
	}
	return 0
}

// Stats measures c, which must be sorted (Verify passes).
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
		if op.IsBootstrapped() {
			s.Bootstraps++
		}
	}
	outDepth := func(cost func(*Node) int) int {
		lv := Levels(c, cost)
		d := 0
		for i := range c.Outputs {
			for _, id := range c.Outputs[i].Bits {
				d = max(d, lv[id])
			}
		}
		return d
	}
	s.Depth = outDepth(UnitCost)
	s.AndDepth = outDepth(AndCost)
	s.BootstrapDepth = outDepth(BootstrapCost)
	return s
}

// String renders the statistics as aligned "key: value" lines, ops with a
// zero count left out.
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
	fmt.Fprintf(&sb, "bootstraps:      %d\n", s.Bootstraps)
	fmt.Fprintf(&sb, "bootstrap-depth: %d\n", s.BootstrapDepth)
	return sb.String()
}
