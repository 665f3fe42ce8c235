package ir

// Multi-output lookup tables. An FHEW blind rotation on Σ w_i·x_i can
// yield several functions of the same inputs (backend/fhew multilut.go):
// one OpMLUT node does the blind rotation and is output 0; each further
// output is an OpMOut node reading the OpMLUT node and the same inputs.
//
//   - OpMLUT: In = the k inputs (1 <= k <= MaxMLUTInputs); Table packs the
//     group's truth tables, table j in bits [j·2^k, (j+1)·2^k) for j below
//     64/2^k, unused slots repeating table 0 (PackMLUT). Its value is
//     table 0 of In, so it is also an ordinary LUT of its low 2^k bits.
//   - OpMOut: In = [the OpMLUT node, its k inputs in the same order]; Table
//     is this output's own k-input truth table, one of the group's. Its
//     value is Table of In[1:]: the first fanin only says which blind
//     rotation the output comes from, so every evaluator that ignores it is
//     exact, and cost models count the OpMLUT as the bootstrap and OpMOut
//     as free (IsBootstrapped).

// MaxMLUTInputs is the widest OpMLUT: two 2^k-bit tables fit a uint64.
const MaxMLUTInputs = 5

// PackMLUT packs tables (k inputs each, bits beyond 2^k must be clear) into
// an OpMLUT table: duplicates are dropped, table 0 stays first and unused
// slots repeat it. ok is false when k is out of range, a table has stray
// bits, or the distinct tables do not fit (64/2^k of them).
func PackMLUT(tables []uint64, k int) (packed uint64, ok bool) {
	if k < 1 || k > MaxMLUTInputs || len(tables) == 0 {
		return 0, false
	}
	w := uint(1) << uint(k)
	mask := uint64(1)<<w - 1
	var distinct []uint64
	for _, t := range tables {
		if t&^mask != 0 {
			return 0, false
		}
		dup := false
		for _, d := range distinct {
			dup = dup || d == t
		}
		if !dup {
			distinct = append(distinct, t)
		}
	}
	slots := 64 >> uint(k)
	if len(distinct) > slots {
		return 0, false
	}
	for j := 0; j < slots; j++ {
		t := distinct[0]
		if j < len(distinct) {
			t = distinct[j]
		}
		packed |= t << (uint(j) * w)
	}
	return packed, true
}

// MLUTTables unpacks an OpMLUT table on k inputs into its distinct tables,
// table 0 first (nil if k is out of range).
func MLUTTables(packed uint64, k int) []uint64 {
	if k < 1 || k > MaxMLUTInputs {
		return nil
	}
	w := uint(1) << uint(k)
	mask := uint64(1)<<w - 1
	var out []uint64
	for j := 0; j < 64>>uint(k); j++ {
		t := packed >> (uint(j) * w) & mask
		dup := false
		for _, d := range out {
			dup = dup || d == t
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}

// TableView returns the truth table and the inputs it reads for the
// lookup-table ops: OpLUT (its table), OpMLUT (table 0) and OpMOut (its
// table over In[1:]); ok is false for every other op.
func (n *Node) TableView() (table uint64, in []NodeID, ok bool) {
	switch n.Op {
	case OpLUT:
		return n.Table, n.In, true
	case OpMLUT:
		k := len(n.In)
		return n.Table & (uint64(1)<<(uint(1)<<uint(k)) - 1), n.In, true
	case OpMOut:
		return n.Table, n.In[1:], true
	}
	return 0, nil, false
}

// verifyMLUT checks the OpMLUT / OpMOut rules above for node i.
func verifyMLUT(c *Circuit, i int) string {
	nd := &c.Nodes[i]
	switch nd.Op {
	case OpMLUT:
		if k := len(nd.In); k < 1 || k > MaxMLUTInputs {
			return "has " + itoa(k) + " inputs, want 1.." + itoa(MaxMLUTInputs)
		}
	case OpMOut:
		k := len(nd.In) - 1
		if k < 1 || k > MaxMLUTInputs {
			return "has " + itoa(k+1) + " fanins, want the MLUT and 1.." + itoa(MaxMLUTInputs) + " inputs"
		}
		r := nd.In[0]
		if r < 0 || int(r) >= i || c.Nodes[r].Op != OpMLUT {
			return "does not read a preceding MLUT node first"
		}
		root := &c.Nodes[r]
		if len(root.In) != k {
			return "has other inputs than its MLUT"
		}
		for j, x := range root.In {
			if nd.In[j+1] != x {
				return "has other inputs than its MLUT"
			}
		}
		if nd.Table>>(uint(1)<<uint(k)) != 0 {
			return "has table bits beyond entry " + itoa(1<<k)
		}
		found := false
		for _, t := range MLUTTables(root.Table, k) {
			found = found || t == nd.Table
		}
		if !found {
			return "has a table its MLUT does not pack"
		}
	}
	return ""
}

func itoa(x int) string {
	if x == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := x < 0
	if neg {
		x = -x
	}
	for x > 0 {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
