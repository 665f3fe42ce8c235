package ir

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The .hir text format, one item per line ('#' starts a comment line):
//
//	hir 1
//	circuit tour
//	input a: u8
//	input v: u4[4]
//	output sum: u8
//	%0 = INPUT a 0
//	%40 = AND %3 %7 @ tour.hdl:5:10
//	%41 = LUT 0xe8 %1 %2 %3
//	%42 = CONST1
//	bits sum = %40 %41 ...
//
// Nodes are "%ID = OP operands [@ position]": INPUT takes a bus name and a bit
// index, LUT a hex truth table then its inputs, other ops their fanins. IDs
// must be 0..n-1 (each once) but lines may come in any order; a circuit whose
// fanins do not precede their consumers is sorted. Names and positions that
// are not plain words are written as Go-quoted strings. WriteHIR writes nodes
// in index order, so for any circuit that passes Verify (and keeps Table == 0
// off LUTs and Bus == Bit == 0 off inputs, as builders do) ReadHIR(WriteHIR(c))
// equals c and writing it again gives identical bytes.

// hirVersion is the format version on the first line.
const hirVersion = "hir 1"

// plainWord reports whether s can be written without quotes: a non-empty run
// of letters, digits and "_.$/-".
func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r < utf8.RuneSelf && (r == '_' || r == '.' || r == '$' || r == '/' || r == '-' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}

func atom(s string) string {
	if plainWord(s) {
		return s
	}
	return strconv.Quote(s)
}

// plainPos reports whether a position can follow "@ " unquoted: it is read
// back as the rest of the line, so it must have no spaces, controls or quote
// at the start, and be valid UTF-8.
func plainPos(s string) bool {
	if s == "" || s[0] == '"' || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// WriteHIR writes c in the .hir text format. c must pass Verify.
func WriteHIR(w io.Writer, c *Circuit) error {
	if err := Verify(c); err != nil {
		return fmt.Errorf("write .hir: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\ncircuit %s\n", hirVersion, atom(c.Name))
	for i := range c.Inputs {
		fmt.Fprintf(bw, "input %s: %s\n", atom(c.Inputs[i].Name), c.Inputs[i].TypeString())
	}
	for i := range c.Outputs {
		fmt.Fprintf(bw, "output %s: %s\n", atom(c.Outputs[i].Name), c.Outputs[i].TypeString())
	}
	var line []byte
	for i := range c.Nodes {
		n := &c.Nodes[i]
		line = append(line[:0], '%')
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, " = "...)
		line = append(line, n.Op.String()...)
		switch n.Op {
		case OpInput:
			line = append(line, ' ')
			line = append(line, atom(c.Inputs[n.Bus].Name)...)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(n.Bit), 10)
		case OpLUT, OpMLUT, OpMOut:
			line = append(line, " 0x"...)
			line = strconv.AppendUint(line, n.Table, 16)
		}
		for _, in := range n.In {
			line = append(line, " %"...)
			line = strconv.AppendInt(line, int64(in), 10)
		}
		if n.Pos != "" {
			line = append(line, " @ "...)
			if plainPos(n.Pos) {
				line = append(line, n.Pos...)
			} else {
				line = strconv.AppendQuote(line, n.Pos)
			}
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	for i := range c.Outputs {
		line = append(line[:0], "bits "...)
		line = append(line, atom(c.Outputs[i].Name)...)
		line = append(line, " ="...)
		for _, id := range c.Outputs[i].Bits {
			line = append(line, " %"...)
			line = strconv.AppendInt(line, int64(id), 10)
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	return bw.Flush()
}

// hirToken is one lexical item of a .hir line.
type hirToken struct {
	text   string
	quoted bool // a Go-quoted string (text is unquoted)
}

// lexHIR splits a line into words, quoted strings and the punctuation ':'
// and '='. "@" takes the rest of the line as one token (the position).
func lexHIR(s string) (toks []hirToken, pos string, hasPos bool, err error) {
	i := 0
	for i < len(s) {
		switch ch := s[i]; {
		case ch == ' ' || ch == '\t':
			i++
		case ch == ':' || ch == '=':
			toks = append(toks, hirToken{text: s[i : i+1]})
			i++
		case ch == '@':
			rest := strings.TrimLeft(s[i+1:], " \t")
			if strings.HasPrefix(rest, `"`) {
				q, err := strconv.QuotedPrefix(rest)
				if err != nil {
					return nil, "", false, fmt.Errorf("bad quoted position: %v", err)
				}
				if strings.TrimSpace(rest[len(q):]) != "" {
					return nil, "", false, fmt.Errorf("text after the quoted position")
				}
				pos, _ = strconv.Unquote(q)
				return toks, pos, true, nil
			}
			pos = strings.TrimRight(rest, " \t")
			if pos == "" {
				return nil, "", false, fmt.Errorf("empty position after @")
			}
			return toks, pos, true, nil
		case ch == '"':
			q, err := strconv.QuotedPrefix(s[i:])
			if err != nil {
				return nil, "", false, fmt.Errorf("bad quoted string: %v", err)
			}
			u, _ := strconv.Unquote(q)
			toks = append(toks, hirToken{text: u, quoted: true})
			i += len(q)
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t:=\"@", rune(s[j])) {
				j++
			}
			toks = append(toks, hirToken{text: s[i:j]})
			i = j
		}
	}
	return toks, "", false, nil
}

// ParseType parses a bus type in HDL syntax ("bit", "u8", "s16", "u4[4]",
// "bit[2][3]") into width, signedness and array dimensions (nil for scalars).
func ParseType(s string) (width int, signed bool, dims []int, err error) {
	base, rest := s, ""
	if i := strings.IndexByte(s, '['); i >= 0 {
		base, rest = s[:i], s[i:]
	}
	switch {
	case base == "bit":
		width = 1
	case len(base) > 1 && (base[0] == 'u' || base[0] == 's'):
		signed = base[0] == 's'
		w, err := strconv.Atoi(base[1:])
		if err != nil || w < 1 || w > maxBusBits || base[1] == '+' || base[1] == '0' {
			return 0, false, nil, fmt.Errorf("bad type %q: width must be 1..%d", s, maxBusBits)
		}
		width = w
	default:
		return 0, false, nil, fmt.Errorf("bad type %q (want bit, uN or sN, optionally with [N] dimensions)", s)
	}
	total := width
	for rest != "" {
		end := strings.IndexByte(rest, ']')
		if rest[0] != '[' || end < 0 {
			return 0, false, nil, fmt.Errorf("bad array dimensions in type %q", s)
		}
		d, err := strconv.Atoi(rest[1:end])
		if err != nil || d < 1 || rest[1] == '+' || rest[1] == '0' {
			return 0, false, nil, fmt.Errorf("bad array dimension %q in type %q", rest[1:end], s)
		}
		if total > maxBusBits/d {
			return 0, false, nil, fmt.Errorf("type %q has more than %d bits", s, maxBusBits)
		}
		total *= d
		dims = append(dims, d)
		rest = rest[end+1:]
	}
	return width, signed, dims, nil
}

// maxBusBits bounds the bits of one bus in a parsed type, so that a short
// malformed file cannot ask for huge allocations.
const maxBusBits = 1 << 24
