package bgv

import (
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/ir"
)

// gateArith is the arithmetic the gate expansions run on: ciphertexts in
// the executor (ctArith), noise states in the simulation (simArith, see
// sim.go). Both run evalGate, so the simulation follows the executor's
// sequence of operations exactly, and with the same noise and level rules
// (addState, mulState, ... in sim.go) it predicts every ciphertext's level
// and noise estimate bit for bit.
type gateArith[T comparable] interface {
	add(a, b, out T) error
	addOne(a, out T)
	mul(a, b, out T) error // a == b is a square
	constant(v bool, out T)
	copy(a, out T)
	temp() T         // a scratch value (MUX's a+b)
	mono(m uint64) T // the scratch value of LUT monomial m
}

// evalGate computes node n (not INPUT or a constant) as its GF(2)
// polynomial; out never aliases an element of in.
func evalGate[T comparable](ar gateArith[T], n *ir.Node, in []T, o T) error {
	var err error
	switch n.Op {
	case ir.OpNot:
		ar.addOne(in[0], o)
	case ir.OpXor:
		err = ar.add(in[0], in[1], o)
	case ir.OpXnor:
		err = ar.add(in[0], in[1], o)
		ar.addOne(o, o)
	case ir.OpAnd:
		err = ar.mul(in[0], in[1], o)
	case ir.OpNand:
		err = ar.mul(in[0], in[1], o)
		ar.addOne(o, o)
	case ir.OpOr, ir.OpNor: // a + b + ab
		if err = ar.mul(in[0], in[1], o); err == nil {
			if err = ar.add(o, in[0], o); err == nil {
				err = ar.add(o, in[1], o)
			}
		}
		if n.Op == ir.OpNor {
			ar.addOne(o, o)
		}
	case ir.OpAndNY: // a·(1+b) = a + ab
		if err = ar.mul(in[0], in[1], o); err == nil {
			err = ar.add(o, in[0], o)
		}
	case ir.OpSel: // the identity here (ir/sel.go: FHEW's select form)
		ar.copy(in[0], o)
	case ir.OpMux, ir.OpCMux: // s ? a : b = b + s·(a+b); a CMux's In[0] is its OpSel, of value s
		t0 := ar.temp()
		if err = ar.add(in[1], in[2], t0); err == nil {
			if err = ar.mul(in[0], t0, o); err == nil {
				err = ar.add(o, in[2], o)
			}
		}
	case ir.OpParity: // a sum: free of multiplications
		err = ar.add(in[0], in[1], o)
		for j := 2; j < len(in) && err == nil; j++ {
			err = ar.add(o, in[j], o)
		}
	case ir.OpLUT:
		err = evalLUT(ar, n, in, o)
	case ir.OpMLUT, ir.OpMOut: // plain LUTs here (ir/mlut.go)
		t, lin, _ := n.TableView()
		err = evalLUT(ar, &ir.Node{Op: ir.OpLUT, Table: t, In: lin}, in[len(n.In)-len(lin):], o)
	default:
		err = fmt.Errorf("op %v is not a gate", n.Op)
	}
	if err != nil {
		return fmt.Errorf("bgv executor: %v: %w", n.Op, err)
	}
	return nil
}

// evalLUT evaluates a LUT node as Σ_m c_m·Π_(j∈m) x_j over its ANF, each
// monomial a balanced product tree (shared between the node's monomials).
func evalLUT[T comparable](ar gateArith[T], n *ir.Node, in []T, out T) error {
	k := len(n.In)
	anf := ir.ANF(n.Table, k)
	have := uint64(0) // masks whose monomial is computed
	var mono func(m uint64) (T, error)
	mono = func(m uint64) (T, error) {
		if bits.OnesCount64(m) == 1 {
			return in[bits.TrailingZeros64(m)], nil
		}
		slot := ar.mono(m)
		if have>>m&1 == 1 {
			return slot, nil
		}
		// Balanced split: the lower half of the set bits times the rest.
		lo, c := uint64(0), bits.OnesCount64(m)/2
		for r := m; c > 0; r &= r - 1 {
			lo |= r & -r
			c--
		}
		a, err := mono(lo)
		if err != nil {
			return slot, err
		}
		b, err := mono(m &^ lo)
		if err != nil {
			return slot, err
		}
		if err := ar.mul(a, b, slot); err != nil {
			return slot, err
		}
		have |= 1 << m
		return slot, nil
	}
	ar.constant(anf&1 == 1, out)
	first := anf&1 == 0
	for m := uint64(1); m < 1<<uint(k); m++ {
		if anf>>m&1 == 0 {
			continue
		}
		x, err := mono(m)
		if err != nil {
			return err
		}
		if first {
			ar.copy(x, out)
			first = false
			continue
		}
		if err := ar.add(out, x, out); err != nil {
			return err
		}
	}
	return nil
}

// ctArith is gateArith on ciphertexts: a worker's evaluator and scratch.
type ctArith struct{ w *worker }

func (c ctArith) add(a, b, out *Ciphertext) error { return c.w.ev.Add(a, b, out, c.w.sc) }
func (c ctArith) addOne(a, out *Ciphertext)       { c.w.ev.AddOne(a, out) }
func (c ctArith) mul(a, b, out *Ciphertext) error { return c.w.ev.Mul(a, b, out, c.w.sc) }
func (c ctArith) constant(v bool, out *Ciphertext) {
	c.w.ev.SetConstant(v, out)
}
func (c ctArith) copy(a, out *Ciphertext) { copyTo(a, out) }
func (c ctArith) temp() *Ciphertext       { return c.w.t0 }
func (c ctArith) mono(m uint64) *Ciphertext {
	if c.w.mono[m] == nil {
		c.w.mono[m] = c.w.ev.params.NewCiphertext()
	}
	return c.w.mono[m]
}
