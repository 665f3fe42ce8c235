package ir

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"strconv"
)

// WriteBristol writes c as a Bristol-fashion circuit using only AND, XOR,
// INV, EQ and EQW. Every input bus becomes one input value and every output
// bus one output value, of width len(Bus.Bits) (arrays are flattened, names
// and signedness are lost). Other ops are lowered with as few ANDs as
// possible, because AND gates are what MPC and FHE pay for:
//
//	OR    a ^ b ^ (a & b)          NAND  INV(a & b)
//	NOR   INV(OR)                  XNOR  INV(a ^ b)
//	ANDNY a & INV(b)               MUX   f ^ (s & (t ^ f))
//	LUT   XOR of the monomials of its algebraic normal form (ANF)
//
// Output wires must be the last wires, in order: an output bit driven by a
// gate gets that gate's result directly; inputs, constants and bits that
// repeat an earlier output are copied with EQW (or EQ).
func WriteBristol(w io.Writer, c *Circuit) error {
	if err := Verify(c); err != nil {
		return fmt.Errorf("export Bristol: %w", err)
	}
	e := newBristolEmitter(c)
	e.lower()
	bw := bufio.NewWriter(w)
	nWires := e.next + e.nOut
	fmt.Fprintf(bw, "%d %d\n", len(e.gates), nWires)
	busLine := func(bs []Bus) {
		bw.WriteString(strconv.Itoa(len(bs)))
		for i := range bs {
			bw.WriteByte(' ')
			bw.WriteString(strconv.Itoa(len(bs[i].Bits)))
		}
		bw.WriteByte('\n')
	}
	busLine(c.Inputs)
	busLine(c.Outputs)
	bw.WriteByte('\n')
	wire := func(x int) int {
		if x < 0 { // output k is encoded as -(k+1)
			return e.next + (-x - 1)
		}
		return x
	}
	for _, g := range e.gates {
		nin := 2
		if g.b == noWire {
			nin = 1
		}
		bw.WriteString(strconv.Itoa(nin))
		bw.WriteString(" 1 ")
		if g.op == "EQ" {
			bw.WriteString(strconv.Itoa(g.a))
		} else {
			bw.WriteString(strconv.Itoa(wire(g.a)))
		}
		if nin == 2 {
			bw.WriteByte(' ')
			bw.WriteString(strconv.Itoa(wire(g.b)))
		}
		bw.WriteByte(' ')
		bw.WriteString(strconv.Itoa(wire(g.out)))
		bw.WriteByte(' ')
		bw.WriteString(g.op)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// noWire marks an unused operand; fresh asks emit for a new internal wire.
const (
	noWire = int(^uint(0) >> 1)
	fresh  = -noWire
)

type bristolOut struct {
	op   string
	a, b int // wires (b == noWire for one-input gates; a is the constant for EQ)
	out  int // wire; -(k+1) is output wire k
}

type bristolEmitter struct {
	c     *Circuit
	gates []bristolOut
	next  int      // next internal wire
	nOut  int      // output bits
	wire  []int    // wire holding each node, or noWire
	dst   []int    // designated output wire of each node, or fresh
	extra [][2]int // (node, output k) pairs that need a copy
}

func newBristolEmitter(c *Circuit) *bristolEmitter {
	e := &bristolEmitter{c: c, next: c.NumInputBits(), nOut: c.NumOutputBits(),
		wire: make([]int, len(c.Nodes)), dst: make([]int, len(c.Nodes))}
	for i := range e.wire {
		e.wire[i] = noWire
		e.dst[i] = fresh
	}
	off := 0
	for bi := range c.Inputs {
		for j, id := range c.Inputs[bi].Bits {
			e.wire[id] = off + j
		}
		off += len(c.Inputs[bi].Bits)
	}
	k := 0
	for bi := range c.Outputs {
		for _, id := range c.Outputs[bi].Bits {
			op := c.Nodes[id].Op
			if op.IsGate() && e.dst[id] == fresh {
				e.dst[id] = -(k + 1)
			} else {
				e.extra = append(e.extra, [2]int{int(id), k})
			}
			k++
		}
	}
	return e
}

// emit appends a gate writing to dst (a fresh wire if dst == fresh) and
// returns the wire it wrote.
func (e *bristolEmitter) emit(op string, a, b, dst int) int {
	if dst == fresh {
		dst = e.next
		e.next++
	}
	e.gates = append(e.gates, bristolOut{op: op, a: a, b: b, out: dst})
	return dst
}

// constWire returns a wire holding v, emitting EQ once per value.
func (e *bristolEmitter) constWire(v int, cache *[2]int) int {
	if cache[v] == noWire {
		cache[v] = e.emit("EQ", v, noWire, fresh)
	}
	return cache[v]
}

func (e *bristolEmitter) lower() {
	c := e.c
	fo := Fanout(c)
	consts := [2]int{noWire, noWire}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		in := func(j int) int { return e.wire[n.In[j]] }
		d := e.dst[i]
		switch n.Op {
		case OpInput:
			continue
		case OpConst0, OpConst1:
			if fo[i] > 0 {
				e.wire[i] = e.constWire(int(n.Op-OpConst0), &consts)
			}
			continue
		case OpNot:
			e.wire[i] = e.emit("INV", in(0), noWire, d)
		case OpAnd:
			e.wire[i] = e.emit("AND", in(0), in(1), d)
		case OpXor:
			e.wire[i] = e.emit("XOR", in(0), in(1), d)
		case OpOr:
			e.wire[i] = e.or(in(0), in(1), d)
		case OpNand:
			e.wire[i] = e.emit("INV", e.emit("AND", in(0), in(1), fresh), noWire, d)
		case OpNor:
			e.wire[i] = e.emit("INV", e.or(in(0), in(1), fresh), noWire, d)
		case OpXnor:
			e.wire[i] = e.emit("INV", e.emit("XOR", in(0), in(1), fresh), noWire, d)
		case OpAndNY:
			e.wire[i] = e.emit("AND", in(0), e.emit("INV", in(1), noWire, fresh), d)
		case OpSel: // the identity: the node is its input's wire
			e.wire[i] = in(0)
		case OpMux, OpCMux: // a CMux's select wire is its SEL's input
			s, t, f := in(0), in(1), in(2)
			x := e.emit("AND", s, e.emit("XOR", t, f, fresh), fresh)
			e.wire[i] = e.emit("XOR", f, x, d)
		case OpParity:
			w := in(0)
			for j := 1; j < len(n.In); j++ {
				dj := fresh
				if j == len(n.In)-1 {
					dj = d
				}
				w = e.emit("XOR", w, in(j), dj)
			}
			e.wire[i] = w
		case OpLUT, OpMLUT, OpMOut:
			t, lin, _ := n.TableView()
			off := len(n.In) - len(lin) // MOUT's first fanin is its MLUT
			ins := make([]int, len(lin))
			for j := range ins {
				ins[j] = in(off + j)
			}
			e.wire[i] = e.lut(t, ins, d, &consts)
		}
		if d != fresh && e.wire[i] != d { // the lowering ended on an existing wire
			e.wire[i] = e.emit("EQW", e.wire[i], noWire, d)
		}
	}
	for _, x := range e.extra {
		id, k := x[0], x[1]
		if w := e.wire[id]; w != noWire {
			e.emit("EQW", w, noWire, -(k + 1))
		} else { // an unused constant that drives an output
			e.emit("EQ", int(c.Nodes[id].Op-OpConst0), noWire, -(k + 1))
		}
	}
}

func (e *bristolEmitter) or(a, b, dst int) int {
	t := e.emit("AND", a, b, fresh)
	u := e.emit("XOR", a, b, fresh)
	return e.emit("XOR", u, t, dst)
}

// lut lowers a truth table to the XOR of its ANF monomials; each monomial's
// AND product extends the product of its mask without the top input, so
// shared prefixes are computed once.
func (e *bristolEmitter) lut(table uint64, ins []int, dst int, consts *[2]int) int {
	k := len(ins)
	anf := ANF(table, k)
	var prod [64]int
	for m := range prod {
		prod[m] = noWire
	}
	var product func(m uint) int
	product = func(m uint) int {
		if prod[m] != noWire {
			return prod[m]
		}
		top := bits.Len(m) - 1
		rest := m &^ (1 << uint(top))
		if rest == 0 {
			prod[m] = ins[top]
		} else {
			prod[m] = e.emit("AND", product(rest), ins[top], fresh)
		}
		return prod[m]
	}
	var terms []int
	for m := uint(1); m < 1<<uint(k); m++ {
		if anf>>m&1 == 1 {
			terms = append(terms, product(m))
		}
	}
	negate := anf&1 == 1
	switch {
	case len(terms) == 0:
		return e.constWire(int(anf&1), consts)
	case len(terms) == 1 && !negate:
		return terms[0]
	}
	acc := terms[0]
	for j, t := range terms[1:] {
		to := fresh
		if !negate && j == len(terms)-2 {
			to = dst
		}
		acc = e.emit("XOR", acc, t, to)
	}
	if negate {
		acc = e.emit("INV", acc, noWire, dst)
	}
	return acc
}
