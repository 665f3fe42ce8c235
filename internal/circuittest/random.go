package circuittest

import (
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// AllGateOps lists every gate op Random draws by default, each once.
var AllGateOps = []ir.Op{ir.OpNot, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNand, ir.OpNor, ir.OpXnor, ir.OpAndNY,
	ir.OpMux, ir.OpLUT, ir.OpParity}

// Config shapes a random circuit. The zero value of each field but Inputs
// and Gates picks the default named in its comment.
type Config struct {
	// Inputs is the number of input bits (one bus "x"), at least 1.
	Inputs int
	// Gates is the number of gate nodes drawn.
	Gates int
	// Outputs is the number of output bits (one bus "y"), drawn from the
	// last half of the nodes, so that earlier logic may be dead; 0 means 8.
	Outputs int
	// Ops are drawn uniformly, one per gate; list an op several times to
	// weight it. nil means AllGateOps.
	Ops []ir.Op
	// MaxLUTInputs bounds a LUT's fan-in (drawn from 1..MaxLUTInputs);
	// 0 means ir.MaxLUTInputs.
	MaxLUTInputs int
	// MaxParityInputs bounds a PARITY's fan-in (drawn from
	// 2..MaxParityInputs); 0 means 8.
	MaxParityInputs int
	// NoConstants leaves out the CONST0 and CONST1 nodes that are
	// otherwise fanin candidates like the inputs.
	NoConstants bool
	// Duplicates makes about one gate in four an exact copy of an earlier
	// gate (for hashing passes).
	Duplicates bool
	// Window, if positive, draws two fanins in three from the last Window
	// nodes, so that circuits are deep as well as wide; 0 draws uniformly.
	Window int
}

// Random returns a random circuit shaped by cfg, built node by node with
// ir.Builder.Raw: nothing is folded, hashed or normalised, so constants,
// repeated fanins (AND(a, a), PARITY with a repeated input), duplicate
// gates and dead logic all occur. It fails t on a bad Config.
func Random(t testing.TB, rng *rand.Rand, cfg Config) *ir.Circuit {
	t.Helper()
	ops := cfg.Ops
	if ops == nil {
		ops = AllGateOps
	}
	maxLUT, maxPar, nOut := cfg.MaxLUTInputs, cfg.MaxParityInputs, cfg.Outputs
	if maxLUT == 0 {
		maxLUT = ir.MaxLUTInputs
	}
	if maxPar == 0 {
		maxPar = 8
	}
	if nOut == 0 {
		nOut = 8
	}
	switch {
	case cfg.Inputs < 1 || cfg.Gates < 0 || nOut < 0 || cfg.Window < 0:
		t.Fatalf("circuittest.Random: bad config %+v", cfg)
	case maxLUT < 1 || maxLUT > ir.MaxLUTInputs || maxPar < 2 || maxPar > ir.MaxParityInputs:
		t.Fatalf("circuittest.Random: LUT fan-in 1..%d and PARITY fan-in 2..%d, got %d and %d",
			ir.MaxLUTInputs, ir.MaxParityInputs, maxLUT, maxPar)
	case len(ops) == 0:
		t.Fatalf("circuittest.Random: no ops")
	}
	for _, op := range ops {
		if !op.IsGate() {
			t.Fatalf("circuittest.Random: %v is not a gate op", op)
		}
	}
	b := ir.NewBuilder("random")
	ids := b.Input("x", cfg.Inputs, false)
	if !cfg.NoConstants {
		ids = append(ids, b.Raw(ir.Node{Op: ir.OpConst0}), b.Raw(ir.Node{Op: ir.OpConst1}))
	}
	firstGate := len(ids)
	pick := func() ir.NodeID {
		if cfg.Window > 0 && rng.IntN(3) != 0 {
			return ids[len(ids)-1-rng.IntN(min(len(ids), cfg.Window))]
		}
		return ids[rng.IntN(len(ids))]
	}
	for range cfg.Gates {
		if cfg.Duplicates && len(ids) > firstGate && rng.IntN(4) == 0 {
			prev := b.Node(ids[firstGate+rng.IntN(len(ids)-firstGate)])
			ids = append(ids, b.Raw(ir.Node{Op: prev.Op, In: prev.In, Table: prev.Table}))
			continue
		}
		op := ops[rng.IntN(len(ops))]
		n := ir.Node{Op: op}
		k := op.Arity()
		switch op {
		case ir.OpLUT:
			k = 1 + rng.IntN(maxLUT)
			n.Table = rng.Uint64() & (1<<(1<<k) - 1)
		case ir.OpParity:
			k = 2 + rng.IntN(maxPar-1)
		}
		for range k {
			n.In = append(n.In, pick())
		}
		ids = append(ids, b.Raw(n))
	}
	tail := max(1, (len(ids)-firstGate)/2)
	outs := make([]ir.NodeID, nOut)
	for i := range outs {
		outs[i] = ids[len(ids)-1-rng.IntN(min(tail, len(ids)))]
	}
	b.Output("y", nOut, false, outs)
	c, err := b.Build()
	if err != nil {
		t.Fatalf("circuittest.Random: internal error: %v", err)
	}
	return c
}
