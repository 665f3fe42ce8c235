package ir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// hirNode is a node line before IDs are resolved.
type hirNode struct {
	line int
	id   int
	node Node
	refs []int  // fanin IDs as written
	bus  string // INPUT bus name
}

type hirBus struct {
	line int
	bus  Bus
}

type hirBits struct {
	line int
	name string
	refs []int
}

// ReadHIR parses a circuit in the .hir text format (see WriteHIR). file names
// the source in errors, which carry line numbers. A line longer than 256 MiB
// (beyond the longest valid one, a "bits" line of the largest bus) is an
// error. r is read to its end: ReadFile bounds the size of a file, callers
// reading an untrusted stream bound it (io.LimitReader).
func ReadHIR(r io.Reader, file string) (*Circuit, error) {
	return readHIR(r, file, maxHIRLine)
}

// readHIR is ReadHIR with lines of at most lineLimit bytes.
func readHIR(r io.Reader, file string, lineLimit int) (*Circuit, error) {
	errAt := func(line int, format string, args ...any) error {
		return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	br := bufio.NewReader(r)
	var (
		lineNo      int
		sawVersion  bool
		nameLine    int
		name        string
		ins, outs   []hirBus
		nodes       []hirNode
		bitsLines   []hirBits
		seenBusName = map[string]int{}
	)
	for {
		text, rerr := readLine(br, lineLimit)
		if errors.Is(rerr, errLongLine) {
			return nil, errAt(lineNo+1, "line longer than %s (not a .hir file?)", byteCount(int64(lineLimit)))
		}
		if rerr != nil && rerr != io.EOF {
			return nil, errAt(lineNo+1, "read: %v", rerr)
		}
		if text == "" && rerr == io.EOF {
			break
		}
		lineNo++
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
		if t := strings.TrimSpace(text); t == "" || t[0] == '#' {
			if rerr == io.EOF {
				break
			}
			continue
		}
		toks, pos, hasPos, err := lexHIR(text)
		if err != nil {
			return nil, errAt(lineNo, "%v", err)
		}
		if len(toks) == 0 {
			return nil, errAt(lineNo, "position without a node")
		}
		kw := toks[0].text
		if toks[0].quoted {
			kw = ""
		}
		if hasPos && !strings.HasPrefix(kw, "%") {
			return nil, errAt(lineNo, "only node lines take an @ position")
		}
		if !sawVersion {
			if len(toks) != 2 || kw != "hir" || toks[1].text != "1" || toks[1].quoted {
				return nil, errAt(lineNo, "first line must be %q", hirVersion)
			}
			sawVersion = true
			continue
		}
		switch {
		case kw == "circuit":
			if nameLine != 0 {
				return nil, errAt(lineNo, "second circuit line (first on line %d)", nameLine)
			}
			if len(toks) != 2 || (!toks[1].quoted && !plainWord(toks[1].text)) {
				return nil, errAt(lineNo, "want \"circuit NAME\"")
			}
			nameLine, name = lineNo, toks[1].text
		case kw == "input" || kw == "output":
			if len(toks) != 4 || toks[2].text != ":" || toks[2].quoted || toks[3].quoted ||
				(!toks[1].quoted && !plainWord(toks[1].text)) {
				return nil, errAt(lineNo, "want \"%s NAME: TYPE\"", kw)
			}
			bname := toks[1].text
			if bname == "" {
				return nil, errAt(lineNo, "empty bus name")
			}
			if prev, ok := seenBusName[kw+" "+bname]; ok {
				return nil, errAt(lineNo, "duplicate %s %q (first on line %d)", kw, bname, prev)
			}
			seenBusName[kw+" "+bname] = lineNo
			w, signed, dims, err := ParseType(toks[3].text)
			if err != nil {
				return nil, errAt(lineNo, "%v", err)
			}
			hb := hirBus{line: lineNo, bus: Bus{Name: bname, Width: w, Signed: signed, Dims: dims}}
			if kw == "input" {
				ins = append(ins, hb)
			} else {
				outs = append(outs, hb)
			}
		case kw == "bits":
			if len(toks) < 3 || toks[2].text != "=" || toks[2].quoted {
				return nil, errAt(lineNo, "want \"bits NAME = %%ID ...\"")
			}
			hb := hirBits{line: lineNo, name: toks[1].text, refs: make([]int, len(toks)-3)}
			for i, t := range toks[3:] {
				if hb.refs[i], err = parseRef(t); err != nil {
					return nil, errAt(lineNo, "%v", err)
				}
			}
			bitsLines = append(bitsLines, hb)
		case strings.HasPrefix(kw, "%"):
			hn, err := parseHIRNode(toks)
			if err != nil {
				return nil, errAt(lineNo, "%v", err)
			}
			hn.line, hn.node.Pos = lineNo, pos
			nodes = append(nodes, hn)
		default:
			return nil, errAt(lineNo, "unknown line %q (want circuit, input, output, %%ID = ..., or bits)", shorten(text))
		}
		if rerr == io.EOF {
			break
		}
	}
	if !sawVersion {
		return nil, errAt(lineNo+1, "empty file: want %q", hirVersion)
	}
	if nameLine == 0 {
		return nil, errAt(lineNo+1, "missing \"circuit NAME\" line")
	}
	return buildHIR(file, name, ins, outs, nodes, bitsLines, errAt)
}

// maxHIRLine bounds a line of .hir text: the longest valid one lists the
// maxBusBits node IDs of a bus ("bits NAME = %ID ...", at most 10 bytes each).
const maxHIRLine = 256 << 20

// errLongLine is readLine's error for a line longer than its limit.
var errLongLine = errors.New("line too long")

// readLine is br.ReadString('\n') that gives up with errLongLine once the
// line exceeds limit bytes, instead of growing without bound.
func readLine(br *bufio.Reader, limit int) (string, error) {
	var sb strings.Builder
	for {
		chunk, err := br.ReadSlice('\n')
		if sb.Len()+len(chunk) > limit {
			return "", errLongLine
		}
		sb.Write(chunk)
		if err != bufio.ErrBufferFull {
			return sb.String(), err
		}
	}
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// parseRef parses "%ID".
func parseRef(t hirToken) (int, error) {
	if t.quoted || len(t.text) < 2 || t.text[0] != '%' {
		return 0, fmt.Errorf("want a node reference %%ID, got %q", t.text)
	}
	return parseNat(t.text[1:], "node ID")
}

// parseNat parses a decimal number without sign or leading zeros.
func parseNat(s, what string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || s[0] == '+' || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("bad %s %q", what, s)
	}
	return v, nil
}

// parseHIRNode parses "%ID = OP operands" (the position is already split off).
func parseHIRNode(toks []hirToken) (hirNode, error) {
	var hn hirNode
	id, err := parseRef(toks[0])
	if err != nil {
		return hn, err
	}
	hn.id = id
	if len(toks) < 3 || toks[1].text != "=" || toks[1].quoted || toks[2].quoted {
		return hn, fmt.Errorf("want \"%%ID = OP ...\"")
	}
	op, ok := OpByName(toks[2].text)
	if !ok {
		return hn, fmt.Errorf("unknown op %q", toks[2].text)
	}
	hn.node.Op = op
	args := toks[3:]
	switch op {
	case OpInput:
		if len(args) != 2 {
			return hn, fmt.Errorf("INPUT wants a bus name and a bit index")
		}
		hn.bus = args[0].text
		bit, err := parseNat(args[1].text, "bit index")
		if err != nil || args[1].quoted || bit > maxBusBits {
			return hn, fmt.Errorf("bad bit index %q", args[1].text)
		}
		hn.node.Bit = int32(bit)
		return hn, nil
	case OpLUT:
		if len(args) < 1 || args[0].quoted || !strings.HasPrefix(args[0].text, "0x") {
			return hn, fmt.Errorf("LUT wants a hex truth table 0x... then its inputs")
		}
		tbl, err := strconv.ParseUint(args[0].text[2:], 16, 64)
		if err != nil {
			return hn, fmt.Errorf("bad LUT table %q", args[0].text)
		}
		hn.node.Table = tbl
		args = args[1:]
		if k := len(args); k < 1 || k > MaxLUTInputs {
			return hn, fmt.Errorf("LUT has %d inputs, want 1..%d", k, MaxLUTInputs)
		}
		if k := len(args); k < 6 && tbl>>(1<<k) != 0 {
			return hn, fmt.Errorf("LUT%d table %#x has bits beyond entry %d", k, tbl, 1<<k)
		}
	case OpMLUT, OpMOut:
		// Shapes only; Verify checks the group (mlut.go).
		if len(args) < 1 || args[0].quoted || !strings.HasPrefix(args[0].text, "0x") {
			return hn, fmt.Errorf("%v wants a hex table 0x... then its inputs", op)
		}
		tbl, err := strconv.ParseUint(args[0].text[2:], 16, 64)
		if err != nil {
			return hn, fmt.Errorf("bad %v table %q", op, args[0].text)
		}
		hn.node.Table = tbl
		args = args[1:]
		if k := len(args); k < 1 || k > MaxMLUTInputs+1 {
			return hn, fmt.Errorf("%v has %d fanins, want 1..%d", op, k, MaxMLUTInputs+1)
		}
	case OpParity:
		if k := len(args); k < 2 || k > MaxParityInputs {
			return hn, fmt.Errorf("PARITY has %d inputs, want 2..%d", k, MaxParityInputs)
		}
	default:
		if len(args) != op.Arity() {
			return hn, fmt.Errorf("%v takes %d inputs, got %d", op, op.Arity(), len(args))
		}
	}
	hn.refs = make([]int, len(args))
	for i, t := range args {
		if hn.refs[i], err = parseRef(t); err != nil {
			return hn, err
		}
	}
	return hn, nil
}

// buildHIR resolves names and IDs into a circuit, sorting it if needed.
func buildHIR(file, name string, ins, outs []hirBus, nodes []hirNode, bitsLines []hirBits,
	errAt func(int, string, ...any) error) (*Circuit, error) {
	n := len(nodes)
	c := &Circuit{Name: name, Nodes: make([]Node, n)}
	lineOf := make([]int, n)
	inIdx := map[string]int{}
	inputCount := make([]int, len(ins))
	for i := range ins {
		inIdx[ins[i].bus.Name] = i
	}
	for _, hn := range nodes {
		if hn.id >= n {
			return nil, errAt(hn.line, "node ID %%%d out of range: the file has %d nodes, so IDs are 0..%d", hn.id, n, n-1)
		}
		if lineOf[hn.id] != 0 {
			return nil, errAt(hn.line, "node %%%d defined twice (first on line %d)", hn.id, lineOf[hn.id])
		}
		lineOf[hn.id] = hn.line
		nd := hn.node
		if nd.Op == OpInput {
			bi, ok := inIdx[hn.bus]
			if !ok {
				return nil, errAt(hn.line, "INPUT names undeclared input %q", hn.bus)
			}
			nd.Bus = int32(bi)
			inputCount[bi]++
		}
		if len(hn.refs) > 0 {
			nd.In = make([]NodeID, len(hn.refs))
			for j, ref := range hn.refs {
				if ref >= n {
					return nil, errAt(hn.line, "node %%%d reads undefined node %%%d", hn.id, ref)
				}
				nd.In[j] = NodeID(ref)
			}
		}
		c.Nodes[hn.id] = nd
	}
	for i := range ins {
		bus := ins[i].bus
		total := bus.Width * bus.Elems()
		if inputCount[i] != total {
			return nil, errAt(ins[i].line, "input %q (%s) has %d bits but %d INPUT nodes", bus.Name, bus.TypeString(), total, inputCount[i])
		}
		bus.Bits = make([]NodeID, total)
		for j := range bus.Bits {
			bus.Bits[j] = -1
		}
		c.Inputs = append(c.Inputs, bus)
	}
	for _, hn := range nodes {
		if hn.node.Op != OpInput {
			continue
		}
		bus := &c.Inputs[c.Nodes[hn.id].Bus]
		bit := int(hn.node.Bit)
		if bit >= len(bus.Bits) {
			return nil, errAt(hn.line, "bit %d of input %q (%s) does not exist", bit, bus.Name, bus.TypeString())
		}
		if prev := bus.Bits[bit]; prev >= 0 {
			return nil, errAt(hn.line, "bit %d of input %q is also node %%%d (line %d)", bit, bus.Name, prev, lineOf[prev])
		}
		bus.Bits[bit] = NodeID(hn.id)
	}
	outIdx := map[string]int{}
	for i := range outs {
		outIdx[outs[i].bus.Name] = i
		c.Outputs = append(c.Outputs, outs[i].bus)
	}
	for _, bl := range bitsLines {
		oi, ok := outIdx[bl.name]
		if !ok {
			return nil, errAt(bl.line, "bits for undeclared output %q", bl.name)
		}
		bus := &c.Outputs[oi]
		if bus.Bits != nil {
			return nil, errAt(bl.line, "second bits line for output %q", bl.name)
		}
		if want := bus.Width * bus.Elems(); len(bl.refs) != want {
			return nil, errAt(bl.line, "output %q (%s) needs %d bits, got %d", bl.name, bus.TypeString(), want, len(bl.refs))
		}
		bus.Bits = make([]NodeID, len(bl.refs))
		for j, ref := range bl.refs {
			if ref >= n {
				return nil, errAt(bl.line, "output %q bit %d is undefined node %%%d", bl.name, j, ref)
			}
			bus.Bits[j] = NodeID(ref)
		}
	}
	for i := range outs {
		if c.Outputs[i].Bits == nil {
			return nil, errAt(outs[i].line, "output %q has no bits line", outs[i].bus.Name)
		}
	}
	if !IsSorted(c) {
		sorted, err := Sort(c)
		if err != nil {
			var ce *CycleError
			if errors.As(err, &ce) {
				cyc := ce.Cycles[0]
				return nil, errAt(lineOf[cyc[0]], "nodes form a cycle (lines %s)", cycleLines(cyc, lineOf))
			}
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		c = sorted
	}
	if err := Verify(c); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}
