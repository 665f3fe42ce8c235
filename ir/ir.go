// Package ir is hcc's gate-level intermediate representation: a DAG of Boolean
// gates with named, typed input and output buses. Every other part of the
// compiler produces or consumes it, and its plaintext evaluator (Eval, EvalBits)
// is the reference semantics that encrypted runs are checked against.
//
// Invariant: Circuit.Nodes is in topological order, i.e. every fanin of node i
// has an index smaller than i. Builders and passes keep it by construction;
// importers that accept arbitrary gate order sort with gonum (see Graph, Sort).
package ir

import "fmt"

// NodeID indexes Circuit.Nodes.
type NodeID int32

// Op is the operation of a node.
type Op uint8

// The node operations. Two-input gates read In[0] (a) and In[1] (b).
const (
	OpInvalid Op = iota
	OpConst0     // constant false, no inputs
	OpConst1     // constant true, no inputs
	OpInput      // one bit of an input bus, no inputs
	OpNot        // ¬a
	OpAnd        // a ∧ b
	OpOr         // a ∨ b
	OpXor        // a ⊕ b
	OpNand       // ¬(a ∧ b)
	OpNor        // ¬(a ∨ b)
	OpXnor       // ¬(a ⊕ b)
	OpAndNY      // a ∧ ¬b
	OpMux        // In[0] ? In[1] : In[2]  (select, then-value, else-value)
	OpLUT        // Table[index], index bit j = In[j]; 1 <= len(In) <= MaxLUTInputs
	OpParity     // In[0] ⊕ In[1] ⊕ ...; 2 <= len(In) <= MaxParityInputs (one FHEW bootstrap)
	OpMLUT       // multi-output LUT, output 0: table 0 of Table (packed) on In (mlut.go)
	OpMOut       // further output of the OpMLUT In[0]: Table on In[1:] (mlut.go)
	OpSel        // select form of In[0] (value In[0]); FHEW: a circuit bootstrap (sel.go)
	OpCMux       // In[0] ? In[1] : In[2] with In[0] an OpSel node; not bootstrapped (sel.go)
	numOps
)

// MaxLUTInputs is the largest fan-in of an OpLUT node: its truth table fits a uint64.
const MaxLUTInputs = 6

// MaxParityInputs is the largest fan-in of an OpParity node. It only bounds
// the IR; a backend says how wide a parity it evaluates (FHEW's noise budget).
const MaxParityInputs = 64

var opNames = [...]string{
	OpInvalid: "INVALID", OpConst0: "CONST0", OpConst1: "CONST1", OpInput: "INPUT",
	OpNot: "NOT", OpAnd: "AND", OpOr: "OR", OpXor: "XOR", OpNand: "NAND", OpNor: "NOR",
	OpXnor: "XNOR", OpAndNY: "ANDNY", OpMux: "MUX", OpLUT: "LUT",
	OpParity: "PARITY", OpMLUT: "MLUT", OpMOut: "MOUT", OpSel: "SEL", OpCMux: "CMUX",
}

// String returns the op's name as used in the .hir text format.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// OpByName maps a name from String back to its Op.
func OpByName(name string) (Op, bool) {
	for o := OpConst0; o < numOps; o++ {
		if opNames[o] == name {
			return o, true
		}
	}
	return OpInvalid, false
}

// Arity is the number of inputs an op takes; -1 for OpLUT and OpParity,
// whose arity is given by their node.
func (o Op) Arity() int {
	switch o {
	case OpConst0, OpConst1, OpInput:
		return 0
	case OpNot, OpSel:
		return 1
	case OpAnd, OpOr, OpXor, OpNand, OpNor, OpXnor, OpAndNY:
		return 2
	case OpMux, OpCMux:
		return 3
	case OpLUT, OpParity, OpMLUT, OpMOut:
		return -1
	}
	return 0
}

// IsGate reports whether the op computes from other nodes (everything but
// constants and inputs).
func (o Op) IsGate() bool { return o >= OpNot && o < numOps }

// IsBootstrapped reports whether an FHEW-style backend needs a bootstrap to
// evaluate the op: every gate except NOT, which is a free negation.
// An OpMOut is free too: it reuses its OpMLUT's blind rotation, and so is
// an OpCMux (an external product with its OpSel's select form). An OpSel
// counts as bootstrapped; its price in bootstraps is the target's.
func (o Op) IsBootstrapped() bool {
	return o.IsGate() && o != OpNot && o != OpMOut && o != OpCMux
}

// Node is one vertex of the circuit DAG.
type Node struct {
	Op Op
	// In lists the fanins; its length is Op.Arity() (or 1..MaxLUTInputs for
	// OpLUT, 2..MaxParityInputs for OpParity).
	In []NodeID
	// Table is the truth table of an OpLUT node: bit i is the output when the
	// inputs, read as a binary number with In[0] least significant, equal i.
	Table uint64
	// Bus and Bit locate an OpInput node: Circuit.Inputs[Bus].Bits[Bit] is this node.
	Bus, Bit int32
	// Pos is an optional source position ("file:line:col") for error messages.
	Pos string
}

// Bus is a named, typed group of bits: a circuit input or output.
// Scalars have Dims == nil. An array u4[4] has Width 4 and Dims [4]; element e
// (in row-major order) occupies Bits[e*Width : (e+1)*Width], least significant bit first.
type Bus struct {
	Name   string
	Width  int  // bits per element
	Signed bool // two's complement elements
	Dims   []int
	// Bits are the input nodes (for inputs) or the driving nodes (for outputs).
	Bits []NodeID
}

// Elems is the number of elements in the bus (1 for a scalar).
func (b *Bus) Elems() int {
	n := 1
	for _, d := range b.Dims {
		n *= d
	}
	return n
}

// TypeString renders the bus type in HDL syntax, e.g. "u8", "s16", "u4[4]", "bit".
func (b *Bus) TypeString() string {
	s := ""
	switch {
	case b.Width == 1 && !b.Signed:
		s = "bit"
	case b.Signed:
		s = fmt.Sprintf("s%d", b.Width)
	default:
		s = fmt.Sprintf("u%d", b.Width)
	}
	for _, d := range b.Dims {
		s += fmt.Sprintf("[%d]", d)
	}
	return s
}

// Circuit is a combinational Boolean circuit.
type Circuit struct {
	Name    string
	Inputs  []Bus
	Outputs []Bus
	Nodes   []Node
}

// NumInputBits is the total number of input bits over all input buses.
func (c *Circuit) NumInputBits() int {
	n := 0
	for i := range c.Inputs {
		n += len(c.Inputs[i].Bits)
	}
	return n
}

// NumOutputBits is the total number of output bits over all output buses.
func (c *Circuit) NumOutputBits() int {
	n := 0
	for i := range c.Outputs {
		n += len(c.Outputs[i].Bits)
	}
	return n
}

// InputBus returns the index of the input bus with the given name, or -1.
func (c *Circuit) InputBus(name string) int {
	for i := range c.Inputs {
		if c.Inputs[i].Name == name {
			return i
		}
	}
	return -1
}

// OutputBus returns the index of the output bus with the given name, or -1.
func (c *Circuit) OutputBus(name string) int {
	for i := range c.Outputs {
		if c.Outputs[i].Name == name {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy of the circuit.
func (c *Circuit) Clone() *Circuit {
	d := &Circuit{Name: c.Name, Nodes: make([]Node, len(c.Nodes))}
	copy(d.Nodes, c.Nodes)
	for i := range d.Nodes {
		d.Nodes[i].In = append([]NodeID(nil), c.Nodes[i].In...)
	}
	d.Inputs = cloneBuses(c.Inputs)
	d.Outputs = cloneBuses(c.Outputs)
	return d
}

func cloneBuses(bs []Bus) []Bus {
	out := make([]Bus, len(bs))
	for i, b := range bs {
		out[i] = b
		out[i].Dims = append([]int(nil), b.Dims...)
		out[i].Bits = append([]NodeID(nil), b.Bits...)
	}
	return out
}
