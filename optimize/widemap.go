package optimize

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/hcc-fhe/hcc/ir"
)

// WideOptions are MapWide's cost model and limits. The zero value of each
// field picks the default named in its comment. The defaults of the
// set-dependent fields (MaxTerms, the three costs, PackSlots) are a
// fallback for callers without a parameter set (tests, tools that map a
// circuit to look at its plan): rough figures from before the engine was
// measured, not any set's. A caller compiling for a set passes the set's
// own (package hcc: cbs.Params.MaxTerms, Params.Cost and Params.N of the
// chosen wide-table set); optimize cannot ask the backend (layering).
type WideOptions struct {
	// K is the largest table fan-in, 1..ir.MaxWideInputs; 0 means 8. Every
	// non-linear node of the circuit must fit (a LUT6 needs K >= its rank).
	K int
	// MaxTerms bounds the terms of every linear form a table reads (the
	// noise of a circuit bootstrap's input grows with it); forms over the
	// limit get refresh tables. 0 means 12; at least 2.
	MaxTerms int
	// MaxOutTerms bounds the terms of a circuit output's form
	// (decryption's limit); 0 means no limit, otherwise at least 2.
	MaxOutTerms int
	// CBSCost is the cost of one circuit bootstrap (one distinct table
	// input form) in NAND-equivalents; 0 means 6.
	CBSCost float64
	// TableCost is the cost of one packed polynomial's vertical packing
	// (m·2^k <= PackSlots entries each); 0 means 0.2.
	TableCost float64
	// OutCost is the cost of one table output (extraction + key switch);
	// 0 means 0.2.
	OutCost float64
	// PackSlots is the number of table entries one packed polynomial holds
	// (the ring degree N); 0 means 2048.
	PackSlots int
	// Cuts is the number of priority cuts kept per node; 0 means 16.
	Cuts int
	// Passes is the number of area-recovery passes over the stored cuts
	// (each re-prices CBS sharing from the previous cover); 0 means 4.
	Passes int
}

// withDefaults fills the zero fields and checks the rest.
func (o WideOptions) withDefaults() (WideOptions, error) {
	if o.K == 0 {
		o.K = ir.MaxWideInputs
	}
	if o.MaxTerms == 0 {
		o.MaxTerms = 12
	}
	if o.CBSCost == 0 {
		o.CBSCost = 6
	}
	if o.TableCost == 0 {
		o.TableCost = 0.2
	}
	if o.OutCost == 0 {
		o.OutCost = 0.2
	}
	if o.PackSlots == 0 {
		o.PackSlots = 2048
	}
	if o.Cuts == 0 {
		o.Cuts = 16
	}
	if o.Passes == 0 {
		o.Passes = 4
	}
	switch {
	case o.K < 1 || o.K > ir.MaxWideInputs:
		return o, fmt.Errorf("wide map: K = %d, want 1..%d", o.K, ir.MaxWideInputs)
	case o.MaxTerms < 2:
		return o, fmt.Errorf("wide map: MaxTerms = %d, want at least 2 (a refresh must be able to split a sum)", o.MaxTerms)
	case o.MaxOutTerms < 0 || o.MaxOutTerms == 1:
		return o, fmt.Errorf("wide map: MaxOutTerms = %d, want 0 (no limit) or at least 2", o.MaxOutTerms)
	case o.CBSCost < 0 || o.TableCost < 0 || o.OutCost < 0:
		return o, fmt.Errorf("wide map: negative cost (CBS %g, table %g, output %g)", o.CBSCost, o.TableCost, o.OutCost)
	case o.PackSlots < 1<<o.K:
		return o, fmt.Errorf("wide map: PackSlots = %d holds no %d-input table", o.PackSlots, o.K)
	case o.Cuts < 1 || o.Cuts > 64:
		return o, fmt.Errorf("wide map: Cuts = %d, want 1..64", o.Cuts)
	case o.Passes < 1 || o.Passes > 32:
		return o, fmt.Errorf("wide map: Passes = %d, want 1..32", o.Passes)
	}
	return o, nil
}

// PlanCost is the cost of a plan in o's model (NAND-equivalents): one CBS
// per distinct table input form (the executor caches a form's RGSW), one
// vertical packing per PackSlots entries of each table, one extraction per
// table output.
func (o WideOptions) PlanCost(p *ir.WidePlan) (float64, error) {
	o, err := o.withDefaults()
	if err != nil {
		return 0, err
	}
	s := p.Stats()
	cost := float64(s.DistinctIn)*o.CBSCost + float64(s.TableOuts)*o.OutCost
	for i := range p.Tables {
		cost += float64(polys(len(p.Tables[i].Out), len(p.Tables[i].In), o.PackSlots)) * o.TableCost
	}
	return cost, nil
}

// polys is the number of packed polynomials m outputs of a k-input table take.
func polys(m, k, slots int) int {
	per := max(1, slots>>k)
	return (m + per - 1) / per
}

// wnode is one node of the normalised circuit: a linear node is the XOR of
// its fanins and cnst; a non-linear node is table (a truth table over its
// fanins, In[0] least significant); an input is a fresh variable.
type wnode struct {
	lin, input bool
	cnst       bool
	in         []int32
	table      uint64
}

// wgraph is the normalised circuit: linear nodes have at most two fanins
// (wide XORs become balanced trees, so that every partial sum is a node a
// refresh can materialise), non-linear nodes carry their truth table.
type wgraph struct {
	nodes []wnode
	of    []int32 // circuit node -> normalised node
	hash  []uint64
	kappa []bool // constant part of the node's linear form over the basis
	fan   []int32
}

// gate tables over (a = bit 0, b = bit 1[, c = bit 2]).
var gateTables = map[ir.Op]uint64{
	ir.OpAnd: 0b1000, ir.OpOr: 0b1110, ir.OpNand: 0b0111, ir.OpNor: 0b0001, ir.OpAndNY: 0b0010,
	ir.OpMux:  0xD8, // s ? a : b with s = In[0], a = In[1], b = In[2]
	ir.OpCMux: 0xD8, // the same, In[0] an OpSel node (ir/sel.go), whose value is its input's
}

// normalise builds the wgraph of c (every op handled: gates, MUX, LUT,
// PARITY, MLUT/MOUT through their TableView). Non-linear nodes of constant
// fanins are folded to constants, so every table has a non-constant input.
func normalise(c *ir.Circuit) (*wgraph, error) {
	g := &wgraph{of: make([]int32, len(c.Nodes))}
	// Signatures: a random 64-bit image of every basis variable (inputs and
	// non-linear nodes), XORed along linear nodes, so that the rank of a set
	// of linear forms is the rank of their images (with overwhelming
	// probability; the tables MapWide emits are derived exactly and the plan
	// is checked against c before it is returned).
	rng := rand.New(rand.NewPCG(0x5eed, uint64(len(c.Nodes))))
	add := func(n wnode) int32 {
		var h uint64
		k := n.cnst
		switch {
		case n.lin:
			for _, u := range n.in {
				h ^= g.hash[u]
				k = k != g.kappa[u]
			}
		default:
			k = false
			for h == 0 {
				h = rng.Uint64()
			}
		}
		for _, u := range n.in {
			g.fan[u]++
		}
		g.nodes = append(g.nodes, n)
		g.hash = append(g.hash, h)
		g.kappa = append(g.kappa, k)
		g.fan = append(g.fan, 0)
		return int32(len(g.nodes) - 1)
	}
	// xorTree adds the XOR of ins (normalised ids) and cnst as a balanced tree.
	var xorTree func(ins []int32, cnst bool) int32
	xorTree = func(ins []int32, cnst bool) int32 {
		switch len(ins) {
		case 0:
			return add(wnode{lin: true, cnst: cnst})
		case 1, 2:
			return add(wnode{lin: true, cnst: cnst, in: append([]int32(nil), ins...)})
		}
		h := len(ins) / 2
		a, b := xorTree(ins[:h], false), xorTree(ins[h:], cnst)
		return add(wnode{lin: true, in: []int32{a, b}})
	}
	// table adds a non-linear node of table t over ins, first fixing the
	// fanins of constant value (constants, x ⊕ x): what is left may be a
	// constant or affine (then free) or a smaller table.
	table := func(ins []int32, t uint64) int32 {
		var rest []int32
		k := len(ins)
		for j := k - 1; j >= 0; j-- {
			u := ins[j]
			if g.hash[u] != 0 {
				continue
			}
			// Cofactor on input j = κ(u): keep the entries with bit j = κ(u).
			var nt uint64
			bit := 0
			for x := range 1 << k {
				if (x>>j&1 != 0) == g.kappa[u] {
					nt |= (t >> x & 1) << bit
					bit++
				}
			}
			t = nt
			ins = append(ins[:j:j], ins[j+1:]...)
			k--
		}
		rest = ins
		if k == 0 {
			return add(wnode{lin: true, cnst: t&1 != 0})
		}
		if ir.IsAffineLUT(t, k) {
			anf := ir.ANF(t, k)
			var sub []int32
			for j := range k {
				if anf>>(1<<j)&1 != 0 {
					sub = append(sub, rest[j])
				}
			}
			return xorTree(sub, anf&1 != 0)
		}
		return add(wnode{in: append([]int32(nil), rest...), table: t})
	}
	for i := range c.Nodes {
		nd := &c.Nodes[i]
		var ins []int32
		for _, x := range nd.In {
			ins = append(ins, g.of[x])
		}
		var id int32
		switch nd.Op {
		case ir.OpConst0, ir.OpConst1:
			id = add(wnode{lin: true, cnst: nd.Op == ir.OpConst1})
		case ir.OpInput:
			id = add(wnode{input: true})
		case ir.OpNot, ir.OpXnor:
			id = xorTree(ins, true)
		case ir.OpXor, ir.OpParity, ir.OpSel: // an OpSel is the identity (ir/sel.go)
			id = xorTree(ins, false)
		case ir.OpAnd, ir.OpOr, ir.OpNand, ir.OpNor, ir.OpAndNY, ir.OpMux, ir.OpCMux:
			id = table(ins, gateTables[nd.Op])
		case ir.OpLUT, ir.OpMLUT, ir.OpMOut:
			t, in, ok := nd.TableView()
			if !ok {
				return nil, fmt.Errorf("wide map: node %d (%v) has no readable table", i, nd.Op)
			}
			ins = ins[:0]
			for _, x := range in {
				ins = append(ins, g.of[x])
			}
			k := len(in)
			if ir.IsAffineLUT(t, k) {
				anf := ir.ANF(t, k)
				var sub []int32
				for j := range k {
					if anf>>(1<<j)&1 != 0 {
						sub = append(sub, ins[j])
					}
				}
				id = xorTree(sub, anf&1 != 0)
			} else {
				id = table(ins, t)
			}
		default:
			return nil, fmt.Errorf("wide map: node %d has unsupported op %v", i, nd.Op)
		}
		g.of[i] = id
	}
	return g, nil
}

// MapWide covers c with free linear layers and wide tables (ir.WidePlan) at
// the least cost in opt's model: NAND-equivalents of circuit bootstraps (one
// per distinct linear form a table reads), vertical packings and outputs,
// including the refresh tables that keep every consumed form within
// MaxTerms terms. XOR, XNOR, NOT, affine LUTs and PARITY become free linear
// forms; every other node is inside some table. The plan computes exactly c's
// function (every table is derived by exact linear algebra over GF(2) and
// evaluation of its cone); Verify passes on it.
//
// Algorithm (docs/fhew-widemap.md): contract linear nodes so that each node is
// a linear form over basis variables (inputs and non-linear nodes); enumerate
// priority cuts whose size is the rank of their generators' forms (so XOR
// layers between a table's inputs and its cone cost nothing); cover from the
// outputs by area flow, choosing for each linear node "free" or "table
// output", re-pricing each CBS by the number of roots sharing its form over a
// few passes; group roots with the same span into one multi-output table;
// insert refreshes where a form exceeds MaxTerms.
func MapWide(c *ir.Circuit, opt WideOptions) (*ir.WidePlan, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := ir.Verify(c); err != nil {
		return nil, fmt.Errorf("wide map: %w", err)
	}
	g, err := normalise(c)
	if err != nil {
		return nil, err
	}
	m := newWideMapper(c, g, o)
	if err := m.enumerate(); err != nil {
		return nil, err
	}
	best, err := m.bestCover()
	if err != nil {
		return nil, err
	}
	// Fusion across a table's first output helps chains (carries, divider
	// rows) and can hurt elsewhere (udivide64: 1.4x the CBS); build both
	// ways and keep the cheaper plan. The relaxed build may also close a
	// cycle through cancelling forms, then only the strict one counts.
	strict, err := m.build(best, true)
	if err != nil {
		return nil, err
	}
	relaxed, err := m.build(best, false)
	if errors.Is(err, errCycle) {
		return strict, nil
	}
	if err != nil {
		return nil, err
	}
	cs, _ := o.PlanCost(strict)
	cr, _ := o.PlanCost(relaxed)
	if cr < cs {
		return relaxed, nil
	}
	return strict, nil
}
