package ir

import "fmt"

// Program is a circuit precompiled for fast plaintext evaluation: gates as a
// flat array of fixed-size instructions (no per-node slices to chase), input
// and constant nodes loaded up front. Build it once with Compile and reuse it;
// it is immutable and safe for concurrent use (each goroutine brings its own
// vals scratch of ScratchLen words).
type Program struct {
	nodes   int
	inputs  []int32 // node of each input bit, in EvalBits layout
	ones    []int32 // OpConst1 nodes
	zeros   []int32 // OpConst0 nodes
	code    []instr
	luts    []lutInstr
	pars    [][]int32 // fanins of each PARITY node
	outputs []int32   // node of each output bit
}

// instr is one gate. Two-input gates and NOT are evaluated without a branch
// (a switch on the op mispredicts on nearly every gate of a real circuit):
//
//	x = a ^ ma, y = b ^ mb
//	v = ((x & y) if the and-flag is set, else (x ^ y)) ^ mo
//
// with masks ma, mb, mo in {0, ^0} taken from flag bits. NOT is XOR with the
// always-zero scratch slot. MUX and LUT set flagSlow and take a branch.
type instr struct {
	dst, a, b, c int32 // for LUTs, a indexes Program.luts; for PARITY, Program.pars
	flags        uint8
	op           Op
}

const (
	flagNegA = 1 << iota
	flagNegB
	flagNegOut
	flagAnd
	flagSlow
)

// gateFlags gives the branch-free form of each simple gate.
var gateFlags = [numOps]uint8{
	OpNot:    flagNegOut, // a ^ 0 ^ 1
	OpAnd:    flagAnd,
	OpOr:     flagAnd | flagNegA | flagNegB | flagNegOut,
	OpXor:    0,
	OpNand:   flagAnd | flagNegOut,
	OpNor:    flagAnd | flagNegA | flagNegB,
	OpXnor:   flagNegOut,
	OpAndNY:  flagAnd | flagNegB,
	OpMux:    flagSlow,
	OpLUT:    flagSlow,
	OpParity: flagSlow,
	OpMLUT:   flagSlow,
	OpMOut:   flagSlow,
	OpSel:    0, // x ^ (the zero slot): the identity
	OpCMux:   flagSlow,
}

type lutInstr struct {
	table uint64
	k     int
	in    [MaxLUTInputs]int32
}

// Compile precompiles c (which must pass Verify) for EvalBitsInto.
func (c *Circuit) Compile() *Program {
	p := &Program{nodes: len(c.Nodes)}
	for i := range c.Inputs {
		for _, id := range c.Inputs[i].Bits {
			p.inputs = append(p.inputs, int32(id))
		}
	}
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			p.outputs = append(p.outputs, int32(id))
		}
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch n.Op {
		case OpInput:
			continue
		case OpConst0:
			p.zeros = append(p.zeros, int32(i))
			continue
		case OpConst1:
			p.ones = append(p.ones, int32(i))
			continue
		}
		ins := [3]int32{int32(len(c.Nodes)), int32(len(c.Nodes))} // the zero slot
		if t, lin, ok := n.TableView(); ok {
			l := lutInstr{table: t, k: len(lin)}
			for j, in := range lin {
				l.in[j] = int32(in)
			}
			ins[0] = int32(len(p.luts))
			p.luts = append(p.luts, l)
		} else if n.Op == OpParity {
			par := make([]int32, len(n.In))
			for j, in := range n.In {
				par[j] = int32(in)
			}
			ins[0] = int32(len(p.pars))
			p.pars = append(p.pars, par)
		} else {
			for j, in := range n.In {
				ins[j] = int32(in)
			}
		}
		p.code = append(p.code, instr{op: n.Op, flags: gateFlags[n.Op], dst: int32(i), a: ins[0], b: ins[1], c: ins[2]})
	}
	return p
}

// ScratchLen is the length of the vals scratch EvalBitsInto needs: one word
// per node and an always-zero slot.
func (p *Program) ScratchLen() int { return p.nodes + 1 }

// EvalBitsInto is Circuit.EvalBitsInto on the compiled form: in has one word
// per input bit, vals is scratch of length ScratchLen, out receives one word per
// output bit. It does not allocate.
func (p *Program) EvalBitsInto(in, vals, out []uint64) {
	if len(in) != len(p.inputs) || len(vals) != p.nodes+1 || len(out) != len(p.outputs) {
		panic(fmt.Sprintf("ir: Program.EvalBitsInto got %d/%d/%d words, want %d/%d/%d",
			len(in), len(vals), len(out), len(p.inputs), p.nodes+1, len(p.outputs)))
	}
	vals[p.nodes] = 0
	for j, id := range p.inputs {
		vals[id] = in[j]
	}
	for _, id := range p.ones {
		vals[id] = ^uint64(0)
	}
	for _, id := range p.zeros {
		vals[id] = 0
	}
	for i := range p.code {
		ins := &p.code[i]
		f := uint64(ins.flags)
		if f&flagSlow != 0 {
			vals[ins.dst] = p.slow(ins, vals)
			continue
		}
		x := vals[ins.a] ^ -(f & 1)
		y := vals[ins.b] ^ -(f >> 1 & 1)
		and := -(f >> 3 & 1)
		vals[ins.dst] = ((x & y & and) | ((x ^ y) &^ and)) ^ -(f >> 2 & 1)
	}
	for j, id := range p.outputs {
		out[j] = vals[id]
	}
}

func (p *Program) slow(ins *instr, vals []uint64) uint64 {
	if ins.op == OpMux || ins.op == OpCMux {
		s := vals[ins.a]
		return (s & vals[ins.b]) | (^s & vals[ins.c])
	}
	if ins.op == OpParity {
		var v uint64
		for _, x := range p.pars[ins.a] {
			v ^= vals[x]
		}
		return v
	}
	l := &p.luts[ins.a]
	return evalLUT32(l.table, l.in[:l.k], vals)
}

// evalLUT32 gathers a LUT's int32 fanin lanes and applies EvalTable.
func evalLUT32(table uint64, ins []int32, vals []uint64) uint64 {
	var vars [MaxLUTInputs]uint64
	for j, x := range ins {
		vars[j] = vals[x]
	}
	return EvalTable(table, vars[:len(ins)])
}
