package bgv

import (
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// bitArith is gateArith on 64 plaintext lanes (GF(2): + is XOR, × is AND).
type bitArith struct{ monos map[uint64]*uint64 }

func (bitArith) add(a, b, out *uint64) error { *out = *a ^ *b; return nil }
func (bitArith) addOne(a, out *uint64)       { *out = ^*a }
func (bitArith) mul(a, b, out *uint64) error { *out = *a & *b; return nil }
func (bitArith) constant(v bool, out *uint64) {
	*out = 0
	if v {
		*out = ^uint64(0)
	}
}
func (bitArith) copy(a, out *uint64) { *out = *a }
func (bitArith) temp() *uint64       { return new(uint64) }
func (b bitArith) mono(m uint64) *uint64 {
	if b.monos[m] == nil {
		b.monos[m] = new(uint64)
	}
	return b.monos[m]
}

// TestMultiLUTNodesAsLUTs: BGV evaluates ir.OpMLUT and ir.OpMOut nodes (a
// mapped FHEW circuit's multi-output groups) as the plain LUTs they are,
// lane for lane equal to ir.EvalGate.
func TestMultiLUTNodesAsLUTs(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for k := 1; k <= ir.MaxMLUTInputs; k++ {
		for trial := 0; trial < 20; trial++ {
			mask := uint64(1)<<(uint(1)<<uint(k)) - 1
			tables := []uint64{rng.Uint64() & mask, rng.Uint64() & mask}
			packed, ok := ir.PackMLUT(tables, k)
			if !ok {
				t.Fatal("PackMLUT failed")
			}
			in := make([]*uint64, k)
			lanes := make([]uint64, k)
			for i := range in {
				lanes[i] = rng.Uint64()
				in[i] = &lanes[i]
			}
			ids := make([]ir.NodeID, k)
			for i := range ids {
				ids[i] = ir.NodeID(i)
			}
			root := &ir.Node{Op: ir.OpMLUT, In: ids, Table: packed}
			var got uint64
			if err := evalGate[*uint64](bitArith{map[uint64]*uint64{}}, root, in, &got); err != nil {
				t.Fatal(err)
			}
			if want := ir.EvalGate(ir.OpMLUT, packed, lanes); got != want {
				t.Fatalf("MLUT%d %#x: got %x, want %x", k, packed, got, want)
			}
			out := &ir.Node{Op: ir.OpMOut, In: append([]ir.NodeID{ir.NodeID(k)}, ids...), Table: tables[1]}
			rootLane := got
			if err := evalGate[*uint64](bitArith{map[uint64]*uint64{}}, out, append([]*uint64{&rootLane}, in...), &got); err != nil {
				t.Fatal(err)
			}
			if want := ir.EvalGate(ir.OpMOut, tables[1], append([]uint64{rootLane}, lanes...)); got != want {
				t.Fatalf("MOUT%d %#x: got %x, want %x", k, tables[1], got, want)
			}
		}
	}
}
