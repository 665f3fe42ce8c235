package ir

import "fmt"

// Builder appends nodes to a circuit in topological order. It folds constants
// and trivial identities (x∧0, x⊕x, ¬¬x, ...) and hashes structurally equal
// gates, so lowering code can emit naive logic without bloating the circuit.
// A Builder is not safe for concurrent use.
type Builder struct {
	c      *Circuit
	hash   map[nodeKey]NodeID
	phash  map[string]NodeID // PARITY nodes by their sorted fanins
	pos    string
	consts [2]NodeID
	noFold bool // SetFolding(false): emit gates as asked
	noHash bool // SetHashing(false): never reuse an existing gate
}

type nodeKey struct {
	op    Op
	in    [MaxLUTInputs]NodeID
	n     int8
	table uint64
}

// NewBuilder starts an empty circuit with the given name.
func NewBuilder(name string) *Builder {
	return &Builder{c: &Circuit{Name: name}, hash: map[nodeKey]NodeID{}, phash: map[string]NodeID{}, consts: [2]NodeID{-1, -1}}
}

// SetFolding turns constant folding and trivial identities on (the default)
// or off. Passes use it to give folding and hashing one job each.
func (b *Builder) SetFolding(on bool) { b.noFold = !on }

// SetHashing turns structural hashing on (the default) or off.
func (b *Builder) SetHashing(on bool) { b.noHash = !on }

// SetPos sets the source position recorded on nodes created from now on.
func (b *Builder) SetPos(pos string) { b.pos = pos }

// Pos returns the source position currently recorded on new nodes.
func (b *Builder) Pos() string { return b.pos }

// Len is the number of nodes created so far.
func (b *Builder) Len() int { return len(b.c.Nodes) }

// Node returns node id as created so far (read-only).
func (b *Builder) Node(id NodeID) *Node { return &b.c.Nodes[id] }

func (b *Builder) add(n Node) NodeID {
	n.Pos = b.pos
	b.c.Nodes = append(b.c.Nodes, n)
	return NodeID(len(b.c.Nodes) - 1)
}

// Input declares an input bus and returns its bits (element-major, LSB first).
func (b *Builder) Input(name string, width int, signed bool, dims ...int) []NodeID {
	bus := Bus{Name: name, Width: width, Signed: signed, Dims: append([]int(nil), dims...)}
	busIdx := int32(len(b.c.Inputs))
	total := width * bus.Elems()
	bus.Bits = make([]NodeID, total)
	for i := range bus.Bits {
		bus.Bits[i] = b.add(Node{Op: OpInput, Bus: busIdx, Bit: int32(i)})
	}
	b.c.Inputs = append(b.c.Inputs, bus)
	return append([]NodeID(nil), bus.Bits...)
}

// Output declares an output bus driven by bits (element-major, LSB first).
func (b *Builder) Output(name string, width int, signed bool, bits []NodeID, dims ...int) {
	b.c.Outputs = append(b.c.Outputs, Bus{Name: name, Width: width, Signed: signed,
		Dims: append([]int(nil), dims...), Bits: append([]NodeID(nil), bits...)})
}

// Const returns the constant node for v, creating it once.
func (b *Builder) Const(v bool) NodeID {
	i := 0
	if v {
		i = 1
	}
	if b.consts[i] < 0 {
		op := OpConst0
		if v {
			op = OpConst1
		}
		b.consts[i] = b.add(Node{Op: op})
	}
	return b.consts[i]
}

// ConstValue reports whether id is a constant node and its value.
func (b *Builder) ConstValue(id NodeID) (value, ok bool) {
	switch b.c.Nodes[id].Op {
	case OpConst0:
		return false, true
	case OpConst1:
		return true, true
	}
	return false, false
}

func (b *Builder) hashed(k nodeKey, mk func() Node) NodeID {
	if b.noHash {
		return b.add(mk())
	}
	if id, ok := b.hash[k]; ok {
		return id
	}
	id := b.add(mk())
	b.hash[k] = id
	return id
}

func (b *Builder) gate2(op Op, x, y NodeID) NodeID {
	if x > y && op != OpAndNY { // commutative: normalise the operand order
		x, y = y, x
	}
	return b.hashed(nodeKey{op: op, in: [MaxLUTInputs]NodeID{x, y}, n: 2},
		func() Node { return Node{Op: op, In: []NodeID{x, y}} })
}

// Not returns ¬x.
func (b *Builder) Not(x NodeID) NodeID {
	if b.noFold {
		return b.not(x)
	}
	if v, ok := b.ConstValue(x); ok {
		return b.Const(!v)
	}
	if n := &b.c.Nodes[x]; n.Op == OpNot {
		return n.In[0]
	}
	return b.not(x)
}

func (b *Builder) not(x NodeID) NodeID {
	return b.hashed(nodeKey{op: OpNot, in: [MaxLUTInputs]NodeID{x}, n: 1},
		func() Node { return Node{Op: OpNot, In: []NodeID{x}} })
}

// isNegationOf reports whether x is NOT y or y is NOT x.
func (b *Builder) isNegationOf(x, y NodeID) bool {
	nx, ny := &b.c.Nodes[x], &b.c.Nodes[y]
	return (nx.Op == OpNot && nx.In[0] == y) || (ny.Op == OpNot && ny.In[0] == x)
}

// And returns x ∧ y.
func (b *Builder) And(x, y NodeID) NodeID {
	if r, ok := b.foldAnd(x, y); ok {
		return r
	}
	return b.gate2(OpAnd, x, y)
}

// Or returns x ∨ y.
func (b *Builder) Or(x, y NodeID) NodeID {
	if r, ok := b.foldOr(x, y); ok {
		return r
	}
	return b.gate2(OpOr, x, y)
}

// Xor returns x ⊕ y.
func (b *Builder) Xor(x, y NodeID) NodeID {
	if r, ok := b.foldXor(x, y); ok {
		return r
	}
	return b.gate2(OpXor, x, y)
}

// Nand returns ¬(x ∧ y).
func (b *Builder) Nand(x, y NodeID) NodeID {
	if r, ok := b.foldAnd(x, y); ok {
		return b.Not(r)
	}
	return b.gate2(OpNand, x, y)
}

// Nor returns ¬(x ∨ y).
func (b *Builder) Nor(x, y NodeID) NodeID {
	if r, ok := b.foldOr(x, y); ok {
		return b.Not(r)
	}
	return b.gate2(OpNor, x, y)
}

// Xnor returns ¬(x ⊕ y).
func (b *Builder) Xnor(x, y NodeID) NodeID {
	if r, ok := b.foldXor(x, y); ok {
		return b.Not(r)
	}
	return b.gate2(OpXnor, x, y)
}

// foldAnd simplifies x ∧ y without creating a gate, if an identity applies.
func (b *Builder) foldAnd(x, y NodeID) (NodeID, bool) {
	if b.noFold {
		return 0, false
	}
	vx, cx := b.ConstValue(x)
	vy, cy := b.ConstValue(y)
	switch {
	case cx && !vx, cy && !vy:
		return b.Const(false), true
	case cx:
		return y, true
	case cy:
		return x, true
	case x == y:
		return x, true
	case b.isNegationOf(x, y):
		return b.Const(false), true
	}
	return 0, false
}

// foldOr simplifies x ∨ y without creating a gate, if an identity applies.
func (b *Builder) foldOr(x, y NodeID) (NodeID, bool) {
	if b.noFold {
		return 0, false
	}
	vx, cx := b.ConstValue(x)
	vy, cy := b.ConstValue(y)
	switch {
	case cx && vx, cy && vy:
		return b.Const(true), true
	case cx:
		return y, true
	case cy:
		return x, true
	case x == y:
		return x, true
	case b.isNegationOf(x, y):
		return b.Const(true), true
	}
	return 0, false
}

// foldXor simplifies x ⊕ y (creating at most a NOT), if an identity applies.
func (b *Builder) foldXor(x, y NodeID) (NodeID, bool) {
	if b.noFold {
		return 0, false
	}
	vx, cx := b.ConstValue(x)
	vy, cy := b.ConstValue(y)
	switch {
	case cx && cy:
		return b.Const(vx != vy), true
	case cx && vx:
		return b.Not(y), true
	case cx:
		return y, true
	case cy && vy:
		return b.Not(x), true
	case cy:
		return x, true
	case x == y:
		return b.Const(false), true
	case b.isNegationOf(x, y):
		return b.Const(true), true
	}
	return 0, false
}

// AndNY returns x ∧ ¬y.
func (b *Builder) AndNY(x, y NodeID) NodeID {
	if b.noFold {
		return b.gate2(OpAndNY, x, y)
	}
	_, cx := b.ConstValue(x)
	_, cy := b.ConstValue(y)
	if cx || cy || x == y || b.isNegationOf(x, y) {
		return b.And(x, b.Not(y)) // folds to a constant or a wire
	}
	return b.gate2(OpAndNY, x, y)
}

// Mux returns sel ? t : f.
func (b *Builder) Mux(sel, t, f NodeID) NodeID {
	if b.noFold {
		return b.mux(sel, t, f)
	}
	if v, ok := b.ConstValue(sel); ok {
		if v {
			return t
		}
		return f
	}
	if t == f {
		return t
	}
	vt, ct := b.ConstValue(t)
	vf, cf := b.ConstValue(f)
	switch {
	case ct && cf: // t != f here
		if vt {
			return sel
		}
		return b.Not(sel)
	case ct && vt:
		return b.Or(sel, f)
	case ct:
		return b.AndNY(f, sel)
	case cf && vf:
		return b.Or(b.Not(sel), t)
	case cf:
		return b.And(sel, t)
	case t == sel:
		return b.Or(sel, f)
	case f == sel:
		return b.And(sel, t)
	}
	return b.mux(sel, t, f)
}

func (b *Builder) mux(sel, t, f NodeID) NodeID {
	return b.hashed(nodeKey{op: OpMux, in: [MaxLUTInputs]NodeID{sel, t, f}, n: 3},
		func() Node { return Node{Op: OpMux, In: []NodeID{sel, t, f}} })
}

// LUT returns a lookup-table node over ins (In[0] least significant index bit).
// It panics if len(ins) is outside 1..MaxLUTInputs: that is a caller bug.
func (b *Builder) LUT(table uint64, ins ...NodeID) NodeID {
	k := len(ins)
	if k < 1 || k > MaxLUTInputs {
		panic(fmt.Sprintf("ir: LUT with %d inputs", k))
	}
	if k < 6 {
		table &= (uint64(1) << (1 << k)) - 1
	}
	key := nodeKey{op: OpLUT, n: int8(k), table: table}
	copy(key.in[:], ins)
	return b.hashed(key, func() Node { return Node{Op: OpLUT, In: append([]NodeID(nil), ins...), Table: table} })
}

// Parity returns the XOR of ins. With folding on it drops constants, strips
// NOTs from the inputs (each flips the result), cancels inputs that appear
// twice, and returns a constant, a wire, a NOT or a two-input XOR when at
// most two inputs remain; otherwise (and always without folding) it emits
// one OpParity node over the sorted inputs, followed by a free NOT if the
// stripped NOTs and constants flipped the result. It panics if more than
// MaxParityInputs inputs remain for one node: that is a caller bug.
func (b *Builder) Parity(ins ...NodeID) NodeID {
	xs := append([]NodeID(nil), ins...)
	flip := false
	if !b.noFold {
		k := 0
		for _, x := range xs {
			for b.c.Nodes[x].Op == OpNot {
				x = b.c.Nodes[x].In[0]
				flip = !flip
			}
			if v, ok := b.ConstValue(x); ok {
				flip = flip != v
				continue
			}
			xs[k] = x
			k++
		}
		xs = xs[:k]
	}
	sortIDs(xs)
	if !b.noFold {
		k := 0
		for _, x := range xs {
			if k > 0 && xs[k-1] == x {
				k-- // x ⊕ x = 0
				continue
			}
			xs[k] = x
			k++
		}
		xs = xs[:k]
		var r NodeID
		switch len(xs) {
		case 0:
			return b.Const(flip)
		case 1:
			r = xs[0]
		case 2:
			r = b.Xor(xs[0], xs[1])
		}
		if len(xs) <= 2 {
			if flip {
				return b.Not(r)
			}
			return r
		}
	}
	if len(xs) < 2 || len(xs) > MaxParityInputs {
		panic(fmt.Sprintf("ir: PARITY with %d inputs", len(xs)))
	}
	var r NodeID
	if b.noHash {
		r = b.add(Node{Op: OpParity, In: xs})
	} else {
		key := make([]byte, 0, 4*len(xs))
		for _, x := range xs {
			key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		var ok bool
		if r, ok = b.phash[string(key)]; !ok {
			r = b.add(Node{Op: OpParity, In: xs})
			b.phash[string(key)] = r
		}
	}
	if flip {
		return b.Not(r)
	}
	return r
}

// sortIDs sorts a short list of node ids in place (insertion sort: no
// allocation, and parity fan-ins are small).
func sortIDs(xs []NodeID) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// Raw appends a node without folding or hashing (importers use it to keep a
// netlist exactly as written). Fanins must already exist.
func (b *Builder) Raw(n Node) NodeID {
	n.In = append([]NodeID(nil), n.In...)
	return b.add(n)
}

// Circuit returns the circuit built so far without checking it.
func (b *Builder) Circuit() *Circuit { return b.c }

// Build verifies and returns the circuit.
func (b *Builder) Build() (*Circuit, error) {
	if err := Verify(b.c); err != nil {
		return nil, err
	}
	return b.c, nil
}
