package ir

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
)

// EvalBits evaluates c on up to 64 input vectors at once: in has one word per
// input bit (all input buses in order, element-major, LSB first) and bit j of
// each word belongs to vector j. It returns one word per output bit, in the
// same layout. It panics if len(in) != c.NumInputBits().
func (c *Circuit) EvalBits(in []uint64) []uint64 {
	vals := make([]uint64, len(c.Nodes))
	out := make([]uint64, c.NumOutputBits())
	c.EvalBitsInto(in, vals, out)
	return out
}

// EvalBitsInto is EvalBits with caller-provided scratch (len(vals) ==
// len(c.Nodes)) and output (len(out) == c.NumOutputBits()); it does not allocate.
func (c *Circuit) EvalBitsInto(in, vals, out []uint64) {
	if len(in) != c.NumInputBits() {
		panic(fmt.Sprintf("ir: EvalBits got %d input words, circuit %q has %d input bits", len(in), c.Name, c.NumInputBits()))
	}
	// Load the input nodes from their buses (no per-call offset table, so
	// no allocation however many buses there are).
	off := 0
	for i := range c.Inputs {
		for j, id := range c.Inputs[i].Bits {
			vals[id] = in[off+j]
		}
		off += len(c.Inputs[i].Bits)
	}
	for i := range c.Nodes {
		nd := &c.Nodes[i]
		var v uint64
		switch nd.Op {
		case OpConst0:
			v = 0
		case OpConst1:
			v = ^uint64(0)
		case OpInput:
			continue // loaded above
		case OpNot:
			v = ^vals[nd.In[0]]
		case OpSel:
			v = vals[nd.In[0]]
		case OpAnd:
			v = vals[nd.In[0]] & vals[nd.In[1]]
		case OpOr:
			v = vals[nd.In[0]] | vals[nd.In[1]]
		case OpXor:
			v = vals[nd.In[0]] ^ vals[nd.In[1]]
		case OpNand:
			v = ^(vals[nd.In[0]] & vals[nd.In[1]])
		case OpNor:
			v = ^(vals[nd.In[0]] | vals[nd.In[1]])
		case OpXnor:
			v = ^(vals[nd.In[0]] ^ vals[nd.In[1]])
		case OpAndNY:
			v = vals[nd.In[0]] &^ vals[nd.In[1]]
		case OpMux, OpCMux: // a CMux's select node has its input's value
			s := vals[nd.In[0]]
			v = (s & vals[nd.In[1]]) | (^s & vals[nd.In[2]])
		case OpLUT, OpMLUT, OpMOut:
			t, in, _ := nd.TableView()
			v = evalLUT(t, in, vals)
		case OpParity:
			for _, x := range nd.In {
				v ^= vals[x]
			}
		default:
			panic(fmt.Sprintf("ir: EvalBits on invalid op %v at node %d", nd.Op, i))
		}
		vals[i] = v
	}
	j := 0
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			out[j] = vals[id]
			j++
		}
	}
}

// EvalTable evaluates a truth table (bit i = f(i), variable 0 least
// significant) on 64 lanes at once: vars[j] holds variable j, lane l in bit l.
// It expands on the highest variable (f = x_{k-1} ? high half : low half).
// It is the one LUT semantics shared by the evaluators and the optimizer.
func EvalTable(table uint64, vars []uint64) uint64 {
	k := len(vars)
	if k == 0 {
		if table&1 != 0 {
			return ^uint64(0)
		}
		return 0
	}
	half := uint(1) << (k - 1)
	lo := table
	if half < 64 {
		lo &= 1<<half - 1
	}
	s := vars[k-1]
	return (s & EvalTable(table>>half, vars[:k-1])) | (^s & EvalTable(lo, vars[:k-1]))
}

// evalLUT gathers a LUT node's fanin lanes and applies EvalTable.
func evalLUT(table uint64, ins []NodeID, vals []uint64) uint64 {
	var vars [MaxLUTInputs]uint64
	for j, x := range ins {
		vars[j] = vals[x]
	}
	return EvalTable(table, vars[:len(ins)])
}

// Values assigns integers to buses by name: one value per element (a single
// value for a scalar bus, row-major order for arrays).
type Values map[string][]*big.Int

// String renders the values sorted by name, e.g. "a=5 v=[1 2 3]".
func (v Values) String() string {
	names := make([]string, 0, len(v))
	for n := range v {
		names = append(names, n)
	}
	sort.Strings(names)
	var sb strings.Builder
	for i, n := range names {
		if i > 0 {
			sb.WriteByte(' ')
		}
		if len(v[n]) == 1 {
			fmt.Fprintf(&sb, "%s=%s", n, v[n][0])
		} else {
			fmt.Fprintf(&sb, "%s=%v", n, v[n])
		}
	}
	return sb.String()
}

// Range returns the smallest and largest value an element of b can hold.
func (b *Bus) Range() (lo, hi *big.Int) {
	one := big.NewInt(1)
	if b.Signed {
		hi = new(big.Int).Lsh(one, uint(b.Width-1))
		lo = new(big.Int).Neg(hi)
		return lo, hi.Sub(hi, one)
	}
	hi = new(big.Int).Lsh(one, uint(b.Width))
	return big.NewInt(0), hi.Sub(hi, one)
}

// PackInputs turns named input values into one bool per input bit in the
// layout of EvalBits. Every input must be given, in range, with the right
// number of elements; unknown names are errors.
func (c *Circuit) PackInputs(in Values) ([]bool, error) {
	for name := range in {
		if c.InputBus(name) < 0 {
			return nil, fmt.Errorf("circuit %q has no input %q (inputs: %s)", c.Name, name, c.busList(c.Inputs))
		}
	}
	bits := make([]bool, 0, c.NumInputBits())
	for i := range c.Inputs {
		bus := &c.Inputs[i]
		vals, ok := in[bus.Name]
		if !ok {
			return nil, fmt.Errorf("missing input %q (%s)", bus.Name, bus.TypeString())
		}
		if len(vals) != bus.Elems() {
			return nil, fmt.Errorf("input %q (%s) needs %d values, got %d", bus.Name, bus.TypeString(), bus.Elems(), len(vals))
		}
		lo, hi := bus.Range()
		for e, v := range vals {
			if v == nil || v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
				return nil, fmt.Errorf("input %q element %d = %v is out of range [%v, %v] for %s", bus.Name, e, v, lo, hi, bus.TypeString())
			}
			u := new(big.Int).Set(v)
			if u.Sign() < 0 { // two's complement bit pattern
				u.Add(u, new(big.Int).Lsh(big.NewInt(1), uint(bus.Width)))
			}
			for k := 0; k < bus.Width; k++ {
				bits = append(bits, u.Bit(k) == 1)
			}
		}
	}
	return bits, nil
}

// UnpackOutputs turns one bool per output bit into named values, reading
// signed buses as two's complement. bits must hold exactly one value per
// output bit (NumOutputBits); a slice of another length is an error, such
// as a damaged or foreign decryption gives.
func (c *Circuit) UnpackOutputs(bits []bool) (Values, error) {
	if n := c.NumOutputBits(); len(bits) != n {
		return nil, fmt.Errorf("circuit %q has %d output bits, got %d", c.Name, n, len(bits))
	}
	out := Values{}
	j := 0
	for i := range c.Outputs {
		bus := &c.Outputs[i]
		vals := make([]*big.Int, bus.Elems())
		for e := range vals {
			v := new(big.Int)
			for k := 0; k < bus.Width; k++ {
				if bits[j] {
					v.SetBit(v, k, 1)
				}
				j++
			}
			if bus.Signed && v.Bit(bus.Width-1) == 1 {
				v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(bus.Width)))
			}
			vals[e] = v
		}
		out[bus.Name] = vals
	}
	return out, nil
}

// Eval is the reference semantics: it evaluates c on one set of named inputs.
func (c *Circuit) Eval(in Values) (Values, error) {
	outs, err := c.EvalBatch([]Values{in})
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// EvalBatch evaluates c on any number of input sets, 64 at a time.
func (c *Circuit) EvalBatch(ins []Values) ([]Values, error) {
	res := make([]Values, 0, len(ins))
	nIn, nOut := c.NumInputBits(), c.NumOutputBits()
	vals := make([]uint64, len(c.Nodes))
	words := make([]uint64, nIn)
	outw := make([]uint64, nOut)
	for start := 0; start < len(ins); start += 64 {
		end := min(start+64, len(ins))
		clear(words)
		for lane := start; lane < end; lane++ {
			bits, err := c.PackInputs(ins[lane])
			if err != nil {
				return nil, err
			}
			for k, bit := range bits {
				if bit {
					words[k] |= 1 << uint(lane-start)
				}
			}
		}
		c.EvalBitsInto(words, vals, outw)
		for lane := start; lane < end; lane++ {
			ob := make([]bool, nOut)
			for k := range ob {
				ob[k] = outw[k]>>uint(lane-start)&1 == 1
			}
			vals, err := c.UnpackOutputs(ob)
			if err != nil {
				return nil, fmt.Errorf("internal error: %w", err)
			}
			res = append(res, vals)
		}
	}
	return res, nil
}

func (c *Circuit) busList(bs []Bus) string {
	parts := make([]string, len(bs))
	for i := range bs {
		parts[i] = bs[i].Name + ": " + bs[i].TypeString()
	}
	return strings.Join(parts, ", ")
}
