package hcc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/hcc-fhe/hcc/ir"
)

// Values are named input or output values of one instance of a circuit: one
// integer per bus element, in row-major order (a scalar bus has one). Signed
// buses hold negative numbers; unsigned ones 0 .. 2^width-1.
type Values = ir.Values

// maxBatchLine bounds one line of a batch file (1 MiB): far above any real
// input set, low enough that a file without newlines cannot exhaust memory.
const maxBatchLine = 1 << 20

// MaxBatchBytes and MaxBatchInstances bound what ParseBatch reads: 64 MiB
// of text and 2^18 input sets (hours of FHEW bootstraps, 128 BGV packs at
// M65537; parsing a million one-input sets took 600 MB). An endless
// stream is an error, not an exhausted memory.
const (
	MaxBatchBytes     = 64 << 20
	MaxBatchInstances = 1 << 18
)

// ParseInputs parses assignments "name=value[,value...]" (the syntax of the
// command line's --in flag) into values for the inputs of c. Every input
// must be assigned exactly once; unknown names, missing inputs, wrong
// element counts and out-of-range values are errors that name the input.
// Each element is read by ParseValue.
func ParseInputs(c *ir.Circuit, assigns ...string) (Values, error) {
	vals := Values{}
	for _, a := range assigns {
		name, list, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("bad input %q: want name=value", a)
		}
		bi := c.InputBus(name)
		if bi < 0 {
			return nil, fmt.Errorf("unknown input %q (inputs: %s)", name, busList(c.Inputs))
		}
		if _, dup := vals[name]; dup {
			return nil, fmt.Errorf("input %q given twice", name)
		}
		bus := &c.Inputs[bi]
		parts := strings.Split(list, ",")
		if len(parts) != bus.Elems() {
			return nil, fmt.Errorf("input %q (%s) needs %d value(s), got %d", name, bus.TypeString(), bus.Elems(), len(parts))
		}
		elems := make([]*big.Int, len(parts))
		for i, p := range parts {
			v, err := ParseValue(strings.TrimSpace(p), bus)
			if err != nil {
				if len(parts) > 1 {
					return nil, fmt.Errorf("input %q (%s) element %d: %w", name, bus.TypeString(), i, err)
				}
				return nil, fmt.Errorf("input %q (%s): %w", name, bus.TypeString(), err)
			}
			elems[i] = v
		}
		vals[name] = elems
	}
	for i := range c.Inputs {
		if _, ok := vals[c.Inputs[i].Name]; !ok {
			return nil, fmt.Errorf("missing input %q (%s)", c.Inputs[i].Name, c.Inputs[i].TypeString())
		}
	}
	return vals, nil
}

// ParseValue reads one element of bus: a decimal number, which must lie in
// the bus's range (negative only for signed buses), or a bit pattern in hex
// (0x), binary (0b) or octal (0o) of any width up to the bus width, which a
// signed bus reads as two's complement (0xff is -1 for s8). '_' may
// separate digits.
func ParseValue(s string, bus *ir.Bus) (*big.Int, error) {
	lo, hi := bus.Range()
	digits := strings.ReplaceAll(s, "_", "")
	base := 10
	if len(digits) > 2 && digits[0] == '0' {
		switch digits[1] {
		case 'x', 'X':
			base = 16
		case 'b', 'B':
			base = 2
		case 'o', 'O':
			base = 8
		}
	}
	if base != 10 {
		v, ok := new(big.Int).SetString(digits[2:], base)
		if !ok || strings.ContainsAny(digits[2:], "+-") {
			return nil, fmt.Errorf("bad number %q", s)
		}
		if v.BitLen() > bus.Width {
			return nil, fmt.Errorf("value %s does not fit in %d bits", s, bus.Width)
		}
		if bus.Signed && v.Bit(bus.Width-1) == 1 {
			v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(bus.Width)))
		}
		return v, nil
	}
	v, ok := new(big.Int).SetString(digits, 10)
	if !ok || digits == "" {
		return nil, fmt.Errorf("bad number %q (want decimal, 0x hex, 0b binary or 0o octal)", s)
	}
	if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
		return nil, fmt.Errorf("value %s is out of range [%v, %v]", s, lo, hi)
	}
	return v, nil
}

// FormatValue renders one element of bus in decimal (signed if the bus is)
// and as a hex bit pattern with one digit per 4 bits of the width.
func FormatValue(bus *ir.Bus, v *big.Int) (dec, hex string) {
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), uint(bus.Width)))
	}
	digits := (bus.Width + 3) / 4
	h := u.Text(16)
	if len(h) < digits {
		h = strings.Repeat("0", digits-len(h)) + h
	}
	return v.String(), "0x" + h
}

// FormatOutputs renders the outputs of c in bus order, one line each:
// "name = DEC (0xHEX)" for scalars, "name = [D0 D1 ...] ([0xH0 0xH1 ...])"
// for arrays (what hcc sim and hcc run print).
func FormatOutputs(c *ir.Circuit, vals Values) string {
	var sb strings.Builder
	for i := range c.Outputs {
		bus := &c.Outputs[i]
		elems := vals[bus.Name]
		decs := make([]string, len(elems))
		hexes := make([]string, len(elems))
		for e, v := range elems {
			decs[e], hexes[e] = FormatValue(bus, v)
		}
		if bus.Dims == nil && len(elems) == 1 {
			fmt.Fprintf(&sb, "%s = %s (%s)\n", bus.Name, decs[0], hexes[0])
		} else {
			fmt.Fprintf(&sb, "%s = [%s] ([%s])\n", bus.Name, strings.Join(decs, " "), strings.Join(hexes, " "))
		}
	}
	return sb.String()
}

// Batch is a list of input sets read from a batch file, with the line each
// came from (for messages).
type Batch struct {
	Values []Values
	Lines  []int
}

// ParseBatch reads a batch file: one input set per line, the assignments of
// ParseInputs separated by spaces; blank lines and lines starting with #
// are skipped. name (the path the user gave) prefixes errors as
// "name:line: reason". A file without instances is an error, and so are a
// line longer than 1 MiB, more than MaxBatchBytes in all and more than
// MaxBatchInstances input sets.
func ParseBatch(c *ir.Circuit, r io.Reader, name string) (*Batch, error) {
	b := &Batch{}
	lr := &io.LimitedReader{R: r, N: MaxBatchBytes + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(nil, maxBatchLine)
	line := 1
	for ; sc.Scan(); line++ {
		if lr.N <= 0 { // more than MaxBatchBytes read (the scanner reads ahead)
			return nil, fmt.Errorf("%s holds more than %d MiB of input sets: split it into several batches", name, MaxBatchBytes>>20)
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		v, err := ParseInputs(c, strings.Fields(text)...)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(b.Values) == MaxBatchInstances {
			return nil, fmt.Errorf("%s:%d: more than %d input sets: split the batch into several", name, line, MaxBatchInstances)
		}
		b.Values = append(b.Values, v)
		b.Lines = append(b.Lines, line)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s:%d: line longer than %d MiB", name, line, maxBatchLine>>20)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s holds more than %d MiB of input sets: split it into several batches", name, MaxBatchBytes>>20)
	}
	if len(b.Values) == 0 {
		return nil, fmt.Errorf("%s holds no instances", name)
	}
	return b, nil
}

func busList(bs []ir.Bus) string {
	parts := make([]string, len(bs))
	for i := range bs {
		parts[i] = bs[i].Name + ": " + bs[i].TypeString()
	}
	return strings.Join(parts, ", ")
}
