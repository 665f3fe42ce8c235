package ir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxBristolInputBits bounds the input bits a Bristol header may declare:
// input wires need not appear in any gate, so without a bound a two-line file
// could demand gigabytes.
const MaxBristolInputBits = 1 << 18

// maxBristolLine bounds a line of a Bristol file: gate lines are short, and
// the longest valid header lists one width per input or output value.
const maxBristolLine = 16 << 20

// ParseError is an error in a Bristol or .hir file at a 1-based line.
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error renders the error as "file:line: message".
func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

type bristolGate struct {
	line int
	op   string
	in   []int // wires; for EQ, in[0] is the constant 0 or 1
	out  []int
}

// ReadBristol parses a Bristol-fashion circuit (format and conventions in
// shared/circuits/README.md). Input value i becomes the unsigned bus "in<i>",
// output value i the bus "out<i>", each with the width from the header; wire
// j of a value is bit j of its bus. AND, XOR and INV become one node each,
// MAND k AND nodes, EQ a constant node, and EQW an alias (no node). Gates may
// come in any order (the result is sorted). name is used for the circuit name
// and in error messages, which give the line: malformed or truncated files,
// wires read but never written, wires written twice, and cycles, and a
// line longer than 16 MiB. r is read to its end: ReadFile bounds the size
// of a file, callers reading an untrusted stream bound it (io.LimitReader).
func ReadBristol(r io.Reader, name string) (*Circuit, error) {
	errAt := func(line int, format string, args ...any) error {
		return &ParseError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxBristolLine)
	type textLine struct {
		n      int
		fields []string
	}
	var lines []textLine
	n := 0
	for sc.Scan() {
		n++
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			lines = append(lines, textLine{n, f})
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, errAt(n+1, "line longer than %s (not a Bristol file?)", byteCount(maxBristolLine))
	} else if err != nil {
		return nil, errAt(n+1, "read: %v", err)
	}
	atoi := func(l textLine, s, what string) (int, error) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return 0, errAt(l.n, "bad %s %q: want a non-negative integer", what, s)
		}
		return v, nil
	}
	if len(lines) < 3 {
		return nil, errAt(n+1, "file ends inside the header (want 3 header lines, got %d)", len(lines))
	}
	hdr := lines[0]
	if len(hdr.fields) != 2 {
		return nil, errAt(hdr.n, "header line 1 must be \"<gates> <wires>\", got %d fields", len(hdr.fields))
	}
	nGates, err := atoi(hdr, hdr.fields[0], "gate count")
	if err != nil {
		return nil, err
	}
	nWires, err := atoi(hdr, hdr.fields[1], "wire count")
	if err != nil {
		return nil, err
	}
	widths := func(l textLine, kind string) ([]int, int, error) {
		cnt, err := atoi(l, l.fields[0], kind+" count")
		if err != nil {
			return nil, 0, err
		}
		if len(l.fields) != cnt+1 {
			return nil, 0, errAt(l.n, "%s line declares %d values but lists %d widths", kind, cnt, len(l.fields)-1)
		}
		ws := make([]int, cnt)
		total := 0
		for i := range ws {
			if ws[i], err = atoi(l, l.fields[i+1], kind+" width"); err != nil {
				return nil, 0, err
			}
			if ws[i] == 0 {
				return nil, 0, errAt(l.n, "%s %d has width 0", kind, i)
			}
			total += ws[i]
			if total > nWires {
				return nil, 0, errAt(l.n, "%s widths exceed the %d wires of the header", kind, nWires)
			}
		}
		return ws, total, nil
	}
	inW, nIn, err := widths(lines[1], "input")
	if err != nil {
		return nil, err
	}
	if nIn > MaxBristolInputBits {
		return nil, errAt(lines[1].n, "%d input bits is more than the supported %d", nIn, MaxBristolInputBits)
	}
	outW, nOut, err := widths(lines[2], "output")
	if err != nil {
		return nil, err
	}

	gates := make([]bristolGate, 0, min(nGates, len(lines)))
	defined := nIn // wires defined by inputs and gates, to bound nWires
	for _, l := range lines[3:] {
		if len(gates) == nGates {
			return nil, errAt(l.n, "more gates than the %d declared in the header", nGates)
		}
		g, err := parseBristolGate(l.fields, l.n, nWires, errAt)
		if err != nil {
			return nil, err
		}
		defined += len(g.out)
		gates = append(gates, g)
	}
	if len(gates) < nGates {
		return nil, errAt(n+1, "file ends after %d of the %d gates declared in the header", len(gates), nGates)
	}
	if nOut > defined {
		return nil, errAt(lines[2].n, "%d output bits declared but inputs and gates write only %d wires", nOut, defined)
	}

	// Pass 1: give every written wire its writer (a node, or an alias for
	// EQW). A map keeps memory proportional to the file, whatever the header says.
	type wireInfo struct {
		node  NodeID // driving node, or -1 for an EQW copy
		alias int    // EQW source wire
		line  int    // line that wrote the wire (0 = input)
	}
	wires := make(map[int]wireInfo, defined)
	c := &Circuit{Name: name, Nodes: make([]Node, 0, defined)}
	nodeLine := make([]int, 0, defined) // line of the gate that made each node (0 for inputs)
	for bi, w := range inW {
		bus := Bus{Name: "in" + strconv.Itoa(bi), Width: w, Bits: make([]NodeID, w)}
		for j := range w {
			id := NodeID(len(c.Nodes))
			c.Nodes = append(c.Nodes, Node{Op: OpInput, Bus: int32(bi), Bit: int32(j)})
			nodeLine = append(nodeLine, 0)
			bus.Bits[j] = id
			wires[int(id)] = wireInfo{node: id}
		}
		c.Inputs = append(c.Inputs, bus)
	}
	for gi := range gates {
		g := &gates[gi]
		for _, w := range g.out {
			if prev, ok := wires[w]; ok {
				if prev.line == 0 {
					return nil, errAt(g.line, "wire %d is an input wire and cannot be written", w)
				}
				return nil, errAt(g.line, "wire %d is written twice (first on line %d)", w, prev.line)
			}
			switch g.op {
			case "EQW":
				wires[w] = wireInfo{node: -1, alias: g.in[0], line: g.line}
				continue
			case "EQ":
				op := OpConst0
				if g.in[0] == 1 {
					op = OpConst1
				}
				c.Nodes = append(c.Nodes, Node{Op: op})
			default:
				c.Nodes = append(c.Nodes, Node{})
			}
			wires[w] = wireInfo{node: NodeID(len(c.Nodes) - 1), line: g.line}
			nodeLine = append(nodeLine, g.line)
		}
	}
	// resolve follows EQW aliases to the driving node.
	resolve := func(w, line int) (NodeID, error) {
		start := w
		for steps := 0; ; steps++ {
			wi, ok := wires[w]
			switch {
			case !ok && w == start:
				return 0, errAt(line, "wire %d is read but never written", w)
			case !ok:
				return 0, errAt(line, "wire %d (copied by EQW into wire %d) is never written", w, start)
			case wi.node >= 0:
				return wi.node, nil
			case steps > len(wires):
				return 0, errAt(wires[start].line, "EQW copies of wire %d form a cycle", start)
			}
			w = wi.alias
		}
	}
	// Pass 2: fill in the gates' fanins.
	id := NodeID(nIn)
	for gi := range gates {
		g := &gates[gi]
		switch g.op {
		case "EQW":
			if _, err := resolve(g.in[0], g.line); err != nil {
				return nil, err
			}
			continue
		case "EQ":
			id++
			continue
		}
		ins := make([]NodeID, len(g.in))
		for j, w := range g.in {
			if ins[j], err = resolve(w, g.line); err != nil {
				return nil, err
			}
		}
		switch g.op {
		case "AND", "XOR":
			op := OpAnd
			if g.op == "XOR" {
				op = OpXor
			}
			c.Nodes[id] = Node{Op: op, In: ins}
			id++
		case "INV":
			c.Nodes[id] = Node{Op: OpNot, In: ins}
			id++
		case "MAND":
			k := len(g.out)
			for j := range k {
				c.Nodes[id] = Node{Op: OpAnd, In: []NodeID{ins[j], ins[k+j]}}
				id++
			}
		}
	}
	for bi, w := range outW {
		bus := Bus{Name: "out" + strconv.Itoa(bi), Width: w, Bits: make([]NodeID, w)}
		base := nWires - nOut
		for k := range bi {
			base += outW[k]
		}
		for j := range w {
			nid, err := resolve(base+j, lines[2].n)
			if err != nil {
				return nil, errAt(lines[2].n, "output %d bit %d: wire %d is never written", bi, j, base+j)
			}
			bus.Bits[j] = nid
		}
		c.Outputs = append(c.Outputs, bus)
	}
	if !IsSorted(c) {
		sorted, err := Sort(c)
		if err != nil {
			var ce *CycleError
			if errors.As(err, &ce) {
				return nil, errAt(nodeLine[ce.Cycles[0][0]], "gates form a cycle (lines %s)", cycleLines(ce.Cycles[0], nodeLine))
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c = sorted
	}
	if err := Verify(c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

func cycleLines(cyc []NodeID, nodeLine []int) string {
	var parts []string
	last := -1
	for i, id := range cyc {
		if i == 10 {
			parts = append(parts, "...")
			break
		}
		if l := nodeLine[id]; l != last {
			parts = append(parts, strconv.Itoa(l))
			last = l
		}
	}
	return strings.Join(parts, ", ")
}

// bristolArity gives the inputs and outputs of every fixed-arity gate.
var bristolArity = map[string][2]int{"AND": {2, 1}, "XOR": {2, 1}, "INV": {1, 1}, "EQ": {1, 1}, "EQW": {1, 1}}

// parseBristolGate checks one gate line: "<nin> <nout> <in...> <out...> <OP>".
func parseBristolGate(f []string, line, nWires int, errAt func(int, string, ...any) error) (bristolGate, error) {
	g := bristolGate{line: line}
	if len(f) < 4 {
		return g, errAt(line, "gate needs at least 4 fields, got %d", len(f))
	}
	num := func(s, what string) (int, error) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return 0, errAt(line, "bad %s %q", what, s)
		}
		return v, nil
	}
	nin, err := num(f[0], "input count")
	if err != nil {
		return g, err
	}
	nout, err := num(f[1], "output count")
	if err != nil {
		return g, err
	}
	if len(f) != 3+nin+nout {
		return g, errAt(line, "gate declares %d inputs and %d outputs, so it needs %d fields, got %d", nin, nout, 3+nin+nout, len(f))
	}
	g.op = f[len(f)-1]
	switch want, ok := bristolArity[g.op]; {
	case g.op == "MAND":
		if nout == 0 || nin != 2*nout {
			return g, errAt(line, "MAND needs 2k inputs and k outputs, got %d and %d", nin, nout)
		}
	case !ok:
		return g, errAt(line, "unknown gate %q (want AND, XOR, INV, EQ, EQW or MAND)", g.op)
	case nin != want[0] || nout != want[1]:
		return g, errAt(line, "%s needs %d inputs and %d output, got %d and %d", g.op, want[0], want[1], nin, nout)
	}
	wires := make([]int, nin+nout)
	for i := range wires {
		if wires[i], err = num(f[2+i], "wire"); err != nil {
			return g, err
		}
		if (g.op != "EQ" || i > 0) && wires[i] >= nWires {
			return g, errAt(line, "wire %d is out of range (the header declares %d wires)", wires[i], nWires)
		}
	}
	g.in, g.out = wires[:nin], wires[nin:]
	if g.op == "EQ" && g.in[0] > 1 {
		return g, errAt(line, "EQ assigns a constant 0 or 1, got %d", g.in[0])
	}
	return g, nil
}
