package optimize

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/stdlib"
)

// TestForDepthNeverDeeper is the depth pipeline's promise as a property:
// on random circuits (wide and deep, every op) ForDepth returns the same
// function with an AND-depth no higher than its input's. 2000 circuits:
// number 1666 once stopped the second balancing on a dead XNOR.
func TestForDepthNeverDeeper(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for iter := range 2000 {
		cfg := circuittest.Config{Inputs: 2 + rng.IntN(14), Gates: 10 + rng.IntN(300), MaxLUTInputs: 4, Duplicates: iter%2 == 0}
		if iter%3 == 0 {
			cfg.Window = 4 // deep chains
		}
		c := circuittest.Random(t, rng, cfg)
		d := circuittest.CheckPass(t, "ForDepth", ForDepth().Run, c)
		if before, after := andDepthOf(c), andDepthOf(d); after > before {
			t.Fatalf("iteration %d: ForDepth raised the AND-depth from %d to %d", iter, before, after)
		}
	}
}

// compileHDL compiles an HDL test program of package lang in style s.
func compileHDL(t *testing.T, file string, s stdlib.Style) *ir.Circuit {
	t.Helper()
	c, err := lang.CompileFile(filepath.Join("..", "lang", "testdata", "depth", file), lang.Options{Style: s})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestForDepthHDL runs the depth pipeline on the programs of the issue
// (a popcount of an XOR, a ReLU layer, a double-width product) in both
// lowering styles: never deeper than given, never deeper than the size
// lowering through the same pipeline by more than the depth lowering's
// own result, and the same function.
func TestForDepthHDL(t *testing.T) {
	for _, file := range []string{"hamming.hdl", "relu_layer.hdl", "product_split.hdl"} {
		for _, s := range []stdlib.Style{stdlib.SizeOptimized, stdlib.DepthOptimized} {
			t.Run(strings.TrimSuffix(file, ".hdl")+"/"+s.String(), func(t *testing.T) {
				c := compileHDL(t, file, s)
				d := circuittest.CheckPass(t, "ForDepth", ForDepth().Run, c)
				if before, after := andDepthOf(c), andDepthOf(d); after > before {
					t.Errorf("ForDepth raised the AND-depth from %d to %d", before, after)
				}
			})
		}
	}
}

// TestForDepthProductAcrossBuses checks that the adder-network stage sees
// through arithmetic spanning several output buses: a full 64-bit product
// of two u32 (array multiplier, AND-depth 63) drops the same whether it is
// one 64-bit bus or two 32-bit halves. It used to drop in neither: the
// ripple rows' upper cells, full adders with a zero operand, fold to a
// carry C ⊕ (x⊕C)∧C that was not recognised; and the halves were traced
// separately, where the low half's top carries feed the high half.
func TestForDepthProductAcrossBuses(t *testing.T) {
	one := compileHDL(t, "product_one.hdl", stdlib.SizeOptimized)
	split := compileHDL(t, "product_split.hdl", stdlib.SizeOptimized)
	d1 := circuittest.CheckPass(t, "ForDepth", ForDepth().Run, one)
	d2 := circuittest.CheckPass(t, "ForDepth", ForDepth().Run, split)
	b1, a1, b2, a2 := andDepthOf(one), andDepthOf(d1), andDepthOf(split), andDepthOf(d2)
	hilo := compileHDL(t, "product_hilo.hdl", stdlib.SizeOptimized)
	d3 := circuittest.CheckPass(t, "ForDepth", ForDepth().Run, hilo)
	b3, a3 := andDepthOf(hilo), andDepthOf(d3)
	if b1 != 63 || b2 != 63 || b3 != 63 || a1 > 16 || a2 != a1 || a3 != a1 {
		t.Errorf("AND-depth: one bus %d -> %d, lo+hi %d -> %d, hi+lo %d -> %d; want 63 -> at most 16 for all", b1, a1, b2, a2, b3, a3)
	}
	t.Logf("64-bit product: one bus %d -> %d, lo+hi %d -> %d, hi+lo %d -> %d", b1, a1, b2, a2, b3, a3)

	// A sum with its carry out as a separate bit, declared first.
	sc := compileHDL(t, "sum_carry.hdl", stdlib.SizeOptimized)
	d4 := circuittest.CheckPass(t, "ForDepth", ForDepth().Run, sc)
	if b, a := andDepthOf(sc), andDepthOf(d4); b != 64 || a > 10 {
		t.Errorf("sum and carry: AND-depth %d -> %d, want 64 -> at most 10", b, a)
	}
}

// TestFoldedHalfAdderCell checks the cell matcher on the folded full adder
// (operand y = 0): carry C ⊕ (x⊕C)∧C = x∧C with sum x⊕C, in every
// negation of the outer XOR's inputs.
func TestFoldedHalfAdderCell(t *testing.T) {
	for _, negU := range []bool{false, true} {
		b := ir.NewBuilder("ha")
		b.SetFolding(false)
		b.SetHashing(false)
		in := b.Input("in", 2, false)
		x, cy := in[0], in[1]
		s := b.Xor(x, cy)
		u := cy
		if negU {
			u = b.Not(cy)
		}
		carry := b.Xor(u, b.And(s, cy))
		b.Output("y", 2, false, []ir.NodeID{s, carry})
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		cells := findAdderCells(c)
		if len(cells) != 1 || len(cells[0].in) != 2 || cells[0].carry != (lit{carry, negU}) || cells[0].sum != (lit{s, false}) {
			t.Fatalf("negU=%v: cells %+v", negU, cells)
		}
		// The cell's identity, in[0] + in[1] = sum + 2·carry, on all four
		// inputs (lane v holds x = bit 0 of v, C = bit 1).
		out := c.EvalBits([]uint64{0b1010, 0b1100})
		for v := range 4 {
			sum, cout := int(out[0]>>v&1), int(out[1]>>v&1)
			if negU {
				cout ^= 1
			}
			if v&1+v>>1 != sum+2*cout {
				t.Errorf("negU=%v in=%02b: sum %d carry %d", negU, v, sum, cout)
			}
		}
	}
}

// TestConstraintsNamePasses checks that an ordering constraint naming no
// pass (a typo, a renamed pass) is an error, and that the table in use
// names only real passes, LUTMap's included.
func TestConstraintsNamePasses(t *testing.T) {
	if err := checkConstraints(constraints, knownPasses); err != nil {
		t.Fatal(err)
	}
	err := checkConstraints([]Constraint{{"fold", "dce"}, {"absorb-nots", "dce"}}, knownPasses)
	if err == nil || !strings.Contains(err.Error(), `pass "absorb-nots" not found`) {
		t.Errorf("error = %v, want the unknown pass named", err)
	}
	if name := LUTMap(allLUTs{}, 4).Name; name != lutMapName {
		t.Errorf("LUTMap's pass is %q, the constraints know it as %q", name, lutMapName)
	}
}

// allLUTs accepts every table.
type allLUTs struct{}

func (allLUTs) MaxLUTInputs() int                   { return 6 }
func (allLUTs) CanEvalLUT(table uint64, k int) bool { return true }
