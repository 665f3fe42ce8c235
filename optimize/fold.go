package optimize

import "github.com/hcc-fhe/hcc/ir"

// Fold is constant propagation: gates with constant inputs, and trivial
// identities such as x∧x or x⊕¬x, are replaced by constants or wires. LUT
// nodes are reduced by their constant and repeated inputs. It hashes as it
// goes, because identities like x∧x are visible only once equal gates are
// one node; one pass in topological order then reaches a fixpoint.
var Fold = Pass{
	Name: "fold",
	Doc:  "requires a verified circuit; ensures no gate has a constant input, no two gates are equal, and no LUT has a repeated or unused input",
	Run: func(c *ir.Circuit) (*ir.Circuit, error) {
		return rebuildWith(c, true, true)
	},
}

// Hash is structural hashing alone (common-subexpression elimination): gates
// with the same op and inputs (commutative inputs normalised) are merged, and
// nothing is folded. Fold includes it; Hash is for circuits whose constants
// must stay, such as a netlist being inspected.
var Hash = Pass{
	Name: "hash",
	Doc:  "requires a verified circuit; ensures no two gates have the same op and inputs",
	Run: func(c *ir.Circuit) (*ir.Circuit, error) {
		return rebuildWith(c, false, true)
	},
}

func rebuildWith(c *ir.Circuit, fold, hash bool) (*ir.Circuit, error) {
	return rebuild(c, func(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID {
		b.SetFolding(fold)
		b.SetHashing(hash)
		if n.Op == ir.OpLUT && !fold {
			return b.LUT(n.Table, in...)
		}
		return emitSame(b, n, in)
	})
}

// foldLUT simplifies a LUT whose inputs may be constant or repeated, then
// emits it as a constant, a wire, a NOT, or a smaller LUT.
func foldLUT(b *ir.Builder, table uint64, in []ir.NodeID) ir.NodeID {
	ins := append([]ir.NodeID(nil), in...)
	for j := 0; j < len(ins); {
		if v, ok := b.ConstValue(ins[j]); ok {
			table = cofactor(table, len(ins), j, v)
			ins = append(ins[:j], ins[j+1:]...)
			continue
		}
		dup := -1
		for i := 0; i < j; i++ {
			if ins[i] == ins[j] {
				dup = i
			}
		}
		if dup >= 0 { // input j always equals input dup: keep the rows where they agree
			table = mergeInputs(table, len(ins), dup, j)
			ins = append(ins[:j], ins[j+1:]...)
			continue
		}
		if cofactor(table, len(ins), j, false) == cofactor(table, len(ins), j, true) {
			table = cofactor(table, len(ins), j, false) // input j does not matter
			ins = append(ins[:j], ins[j+1:]...)
			continue
		}
		j++
	}
	k := len(ins)
	switch {
	case table == 0:
		return b.Const(false)
	case k == 0:
		return b.Const(true)
	case k == 1 && table == 0b10:
		return ins[0]
	case k == 1 && table == 0b01:
		return b.Not(ins[0])
	case k == 2: // every two-input function is a native gate (or a NOT of one)
		return emitTable2(b, table, ins[0], ins[1])
	}
	return b.LUT(table, ins...)
}

// cofactor returns the (k-1)-input table of f with input j fixed to v.
// It selects the entries whose index has bit j = v (shift, mask) and
// closes the gaps between them by doubling block sizes, the bit-sliced
// form of the loop in cofactorSlow (the mapper calls it for every cut).
func cofactor(table uint64, k, j int, v bool) uint64 {
	x := table
	if v {
		x >>= 1 << j
	}
	x &= cofactorMasks[j]
	for s := j; s < 5; s++ {
		x = (x | x>>(1<<s)) & cofactorMasks[s+1]
	}
	return x & (1<<(1<<(k-1)) - 1)
}

// cofactorMasks[j] has bit i set where bit j of i is 0.
var cofactorMasks = [6]uint64{
	0x5555555555555555, 0x3333333333333333, 0x0f0f0f0f0f0f0f0f,
	0x00ff00ff00ff00ff, 0x0000ffff0000ffff, 0x00000000ffffffff,
}

// cofactorSlow is cofactor entry by entry (its test reference).
func cofactorSlow(table uint64, k, j int, v bool) uint64 {
	var out uint64
	for idx := 0; idx < 1<<(k-1); idx++ {
		lo := idx & (1<<j - 1)
		hi := (idx >> j) << (j + 1)
		full := hi | lo
		if v {
			full |= 1 << j
		}
		out |= (table >> uint(full) & 1) << uint(idx)
	}
	return out
}

// mergeInputs returns the (k-1)-input table of f where input j is tied to input i (i < j).
func mergeInputs(table uint64, k, i, j int) uint64 {
	var out uint64
	for idx := 0; idx < 1<<(k-1); idx++ {
		lo := idx & (1<<j - 1)
		hi := (idx >> j) << (j + 1)
		full := hi | lo
		if idx>>i&1 == 1 {
			full |= 1 << j
		}
		out |= (table >> uint(full) & 1) << uint(idx)
	}
	return out
}
