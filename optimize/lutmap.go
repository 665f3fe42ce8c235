package optimize

import (
	"fmt"
	"math"
	"slices"

	"github.com/hcc-fhe/hcc/ir"
)

// LUTTarget says which Boolean functions a backend evaluates in one bootstrap.
// backend/fhew's parameter sets answer it from their noise budget.
type LUTTarget interface {
	// MaxLUTInputs is the largest fan-in of any supported function.
	MaxLUTInputs() int
	// CanEvalLUT reports whether the k-input truth table (bit i = f(i),
	// input 0 least significant) costs one bootstrap.
	CanEvalLUT(table uint64, k int) bool
}

// GateCoster is implemented by targets whose native gates do not all cost one
// bootstrap (FHEW's MUX takes two at a Q/4 encoding). Without it, every native
// gate but NOT costs one.
type GateCoster interface {
	GateBootstraps(op ir.Op) int
}

// LUTMap returns the pass that covers the circuit with multi-input lookup
// tables so that it needs as few bootstraps as possible, with depth as the
// tie-break. It enumerates k-feasible priority cuts (k = min(maxInputs,
// target.MaxLUTInputs())), costs each cut by area flow, keeps only cuts whose
// function the target can evaluate (two-input functions and native gates are
// always allowed), and recovers area over a few rounds using the fanout of
// the current cover. Single-input functions cost nothing: NOT is free. If
// the target is a ParityTarget, XOR cones also get parity cuts of up to
// MaxParityInputs leaves, emitted as PARITY nodes (lutmap_parity.go). If it
// is a MultiLUTTarget, nodes sharing a weighted sum become multi-output
// bootstraps (MLUT/MOUT, lutmap_multi.go), and compare-swap MUX pairs are
// also mapped rewritten for them (lutmap_muxpair.go). If it is a
// SelectTarget with SelectBootstraps() > 0, MUXes sharing a select are also
// mapped as one OpSel and OpCMux nodes, with refreshes where the CMux noise
// needs them (lutmap_cmux*.go). The cheapest cover is kept.
func LUTMap(target LUTTarget, maxInputs int) Pass {
	k := min(maxInputs, target.MaxLUTInputs(), ir.MaxLUTInputs)
	parK := 0
	if pt, ok := target.(ParityTarget); ok {
		parK = min(pt.MaxParityInputs(), ir.MaxParityInputs)
	}
	return Pass{
		Name: "lut-map",
		Doc: fmt.Sprintf("requires a folded circuit; ensures every gate is a native gate, a LUT of at most %d inputs that the target evaluates in one bootstrap, or a PARITY of at most %d inputs",
			k, max(parK, 2)),
		Run: func(c *ir.Circuit) (*ir.Circuit, error) { return lutMapRun(c, target, k, parK) },
	}
}

// mapLUTs is one mapping of c: with parK >= 3 the XOR cones are first
// linearised into PARITY nodes and parity cuts of up to parK leaves are
// enumerated; with parK = 0 every PARITY node is split into XORs first.
func mapLUTs(c *ir.Circuit, target LUTTarget, k, parK int) (*ir.Circuit, error) {
	c, err := splitWideParity(c, parK)
	if err != nil {
		return nil, err
	}
	if c, err = expandLUTs(c, target, k); err != nil {
		return nil, err
	}
	if parK >= 3 {
		if c, err = linearize(c, parK, k); err != nil {
			return nil, err
		}
	}
	m := &mapper{c: c, target: target, k: max(k, 2), parK: parK}
	return m.run()
}

// maxCuts is how many priority cuts each node keeps: more finds better covers
// but slows enumeration roughly quadratically on two-input gates.
const maxCuts = 10

// areaRounds is how many times the cover is recomputed with fanouts taken
// from the previous cover (area-flow recovery).
const areaRounds = 3

type cut struct {
	leaves   [ir.MaxLUTInputs]ir.NodeID
	n        int8
	table    uint64 // function of the root over leaves, leaf 0 least significant
	cost     int8   // bootstraps to implement the root with this cut
	feasible bool   // the target (or a native gate) implements it in one node
	native   bool   // the root's own op on its own fanins
	sel      bool   // an OpSel's boundary cut: its area is selectPrice, not cost
	depth    int32  // bootstraps on the longest path from an input
	flow     float64
	// Parity cuts (lutmap_parity.go): the root is the XOR of wide (sorted
	// leaves, possibly more than ir.MaxLUTInputs), complemented if inv.
	parity, inv bool
	wide        []ir.NodeID
}

func (ct *cut) leafSlice() []ir.NodeID {
	if ct.wide != nil {
		return ct.wide
	}
	return ct.leaves[:ct.n]
}

type mapper struct {
	c      *ir.Circuit
	target LUTTarget
	k      int
	parK   int // widest parity cut (0: none)
	cuts   [][]cut
	best   []int32   // index into cuts[i] of the chosen feasible cut; -1 for inputs
	refs   []float64 // fanout estimate used by area flow
	fanout []int
	par    parityScratch // parityCuts' buffers (lutmap_parity.go)
	order  []int32       // prune's sort buffer
	// selArea is selectPrice(target), set by boundaryCut with the first
	// OpSel cut (so before any area of one is asked).
	selArea float64
}

func (m *mapper) run() (*ir.Circuit, error) {
	m.solve()
	return m.emit()
}

// solve computes the cover (m.cuts, m.best) without emitting it.
func (m *mapper) solve() {
	n := len(m.c.Nodes)
	m.fanout = ir.Fanout(m.c)
	m.refs = make([]float64, n)
	for i, f := range m.fanout {
		m.refs[i] = float64(max(f, 1))
	}
	for round := 0; round < areaRounds; round++ {
		m.enumerate()
		used := m.cover()
		for i := range m.refs {
			if used[i] > 0 {
				m.refs[i] = float64(used[i])
			} else {
				m.refs[i] = float64(max(m.fanout[i], 1))
			}
		}
	}
	for round := 0; round < exactRounds; round++ {
		m.recoverExactArea()
	}
}

// exactRounds is how many exact-area recovery sweeps follow area flow.
const exactRounds = 2

// recoverExactArea revisits every node of the cover in topological order and
// picks the feasible cut that adds the fewest bootstraps given the rest of
// the cover (the cut's exclusive cone is counted by referencing it, as in
// ABC's exact local area recovery), with depth as the tie-break.
func (m *mapper) recoverExactArea() {
	used := m.cover()
	for i := range m.c.Nodes {
		if used[i] == 0 || m.best[i] < 0 || m.onlyCut(i) {
			continue
		}
		m.derefCut(used, &m.cuts[i][m.best[i]])
		bestIdx, bestArea, bestDepth := int32(-1), math.Inf(1), int32(1<<30)
		for j := range m.cuts[i] {
			ct := &m.cuts[i][j]
			if !ct.feasible {
				continue
			}
			area := m.refCut(used, ct)
			m.derefCut(used, ct)
			if area < bestArea || (area == bestArea && ct.depth < bestDepth) {
				bestIdx, bestArea, bestDepth = int32(j), area, ct.depth
			}
		}
		m.best[i] = bestIdx
		m.refCut(used, &m.cuts[i][bestIdx])
	}
}

// onlyCut reports whether node i's best cut is its only feasible one (as
// OpSel's, OpCMux's): nothing to choose, and its deref would walk a CMux
// chain's whole exclusive cone back to its start (quadratic in its length).
func (m *mapper) onlyCut(i int) bool {
	for j := range m.cuts[i] {
		if m.cuts[i][j].feasible && int32(j) != m.best[i] {
			return false
		}
	}
	return true
}

// refCut references the leaves of ct, recursively pulling in the cuts of
// leaves that become used, and returns the bootstraps added (area).
func (m *mapper) refCut(used []int, ct *cut) float64 {
	area := m.area(ct)
	for _, l := range ct.leafSlice() {
		used[l]++
		if used[l] == 1 && m.best[l] >= 0 {
			area += m.refCut(used, &m.cuts[l][m.best[l]])
		}
	}
	return area
}

// derefCut undoes refCut and returns the bootstraps freed (area).
func (m *mapper) derefCut(used []int, ct *cut) float64 {
	area := m.area(ct)
	for _, l := range ct.leafSlice() {
		used[l]--
		if used[l] == 0 && m.best[l] >= 0 {
			area += m.derefCut(used, &m.cuts[l][m.best[l]])
		}
	}
	return area
}

// projections are the truth tables of the six variables over 64 minterms.
var projections = [ir.MaxLUTInputs]uint64{
	0xaaaaaaaaaaaaaaaa, 0xcccccccccccccccc, 0xf0f0f0f0f0f0f0f0,
	0xff00ff00ff00ff00, 0xffff0000ffff0000, 0xffffffff00000000,
}

// enumerate computes the priority cuts and the best feasible cut of every node.
func (m *mapper) enumerate() {
	n := len(m.c.Nodes)
	m.cuts = make([][]cut, n)
	m.best = make([]int32, n)
	var cand []cut
	for i := range m.c.Nodes {
		nd := &m.c.Nodes[i]
		m.best[i] = -1
		if !nd.Op.IsGate() {
			continue
		}
		if isBoundary(nd.Op) { // OpSel, OpCMux: their own node, never absorbed
			m.cuts[i] = []cut{m.boundaryCut(nd)}
			m.best[i] = 0
			continue
		}
		cand = cand[:0]
		best := int32(-1)
		if nd.Op == ir.OpParity && len(nd.In) > m.k {
			m.cuts[i] = nil // its parity cuts below include the node itself
		} else {
			m.mergeFanins(ir.NodeID(i), nd, 0, cut{}, &cand)
			if len(nd.In) > m.k { // the node itself, even if wider than k
				var acc cut
				for _, f := range nd.In {
					acc, _ = unionLeaves(acc, m.faninCut(f, 0), ir.MaxLUTInputs)
				}
				m.finishCut(ir.NodeID(i), nd, acc, &cand)
			}
			m.cuts[i], best = m.prune(cand)
		}
		if m.parK > 0 {
			best = m.addParityCuts(ir.NodeID(i), nd, best)
		}
		if best < 0 {
			panic("optimize: internal error in pass \"lut-map\": no feasible cut")
		}
		m.best[i] = best
	}
}

// fanin cut options: the trivial cut {f} (index -1) or one of f's cuts;
// a boundary node (isBoundary) only as the leaf {f}.
func (m *mapper) faninOptions(f ir.NodeID) int {
	if isBoundary(m.c.Nodes[f].Op) {
		return 1
	}
	return len(m.cuts[f]) + 1
}

func (m *mapper) faninCut(f ir.NodeID, opt int) cut {
	if opt == 0 {
		var t cut
		t.leaves[0], t.n, t.table = f, 1, 0b10
		return t
	}
	return m.cuts[f][opt-1]
}

// mergeFanins recursively picks one cut per fanin, merges their leaves and,
// when the union has at most k leaves, adds the root's cut to cand.
func (m *mapper) mergeFanins(root ir.NodeID, nd *ir.Node, j int, acc cut, cand *[]cut) {
	if j == len(nd.In) {
		m.finishCut(root, nd, acc, cand)
		return
	}
	f := nd.In[j]
	for opt := 0; opt < m.faninOptions(f); opt++ {
		fc := m.faninCut(f, opt)
		if int(fc.n) > m.k { // a wide parity cut
			continue
		}
		merged, ok := unionLeaves(acc, fc, m.k)
		if !ok {
			continue
		}
		// Remember which option each fanin took in the spare table bits.
		merged.table = acc.table | uint64(opt)<<(8*uint(j))
		m.mergeFanins(root, nd, j+1, merged, cand)
	}
}

func unionLeaves(a, b cut, k int) (cut, bool) {
	out := a
	for _, l := range b.leafSlice() {
		found := false
		for _, x := range out.leafSlice() {
			if x == l {
				found = true
				break
			}
		}
		if !found {
			if int(out.n) == k {
				return out, false
			}
			out.leaves[out.n] = l
			out.n++
		}
	}
	return out, true
}

// finishCut computes the root's function over the merged leaves, reduces
// unused leaves, and costs the cut.
func (m *mapper) finishCut(root ir.NodeID, nd *ir.Node, acc cut, cand *[]cut) {
	leaves := acc.leafSlice()
	slices.Sort(leaves) // distinct leaves: the one sorted order
	var in [ir.MaxLUTInputs]uint64
	native := true
	for j, f := range nd.In {
		opt := int(acc.table >> (8 * uint(j)) & 0xff)
		fc := m.faninCut(f, opt)
		if opt != 0 {
			native = false
		}
		var vars [ir.MaxLUTInputs]uint64
		for v, l := range fc.leafSlice() {
			vars[v] = projections[indexOf(leaves, l)]
		}
		in[j] = ir.EvalTable(fc.table, vars[:fc.n])
	}
	t := ir.EvalGate(nd.Op, nd.Table, in[:len(nd.In)])
	c := cut{leaves: acc.leaves, n: acc.n, table: maskTable(t, int(acc.n)), native: native}
	c = reduceCut(c)
	switch {
	case c.n <= 1:
		c.cost, c.feasible = 0, true // constant, wire or NOT
	case c.n == 2:
		c.cost, c.feasible = 1, true // every two-input function is a native gate
	case int(c.n) <= m.k && m.target.CanEvalLUT(c.table, int(c.n)):
		c.cost, c.feasible = 1, true
		if c.native && m.nativeCost(nd.Op) > 1 {
			c.native = false // one LUT beats the multi-bootstrap native gate
		}
	case c.native:
		c.cost, c.feasible = int8(m.nativeCost(nd.Op)), true
	}
	m.score(&c, c.leafSlice())
	*cand = append(*cand, c)
}

// score sets c's area flow (its cost plus each leaf's best flow shared over
// the leaf's estimated references) and depth in bootstraps, from its leaves.
func (m *mapper) score(c *cut, leaves []ir.NodeID) {
	flow := m.area(c)
	depth := int32(0)
	for _, l := range leaves {
		if b := m.best[l]; b >= 0 {
			lc := &m.cuts[l][b]
			flow += lc.flow / m.refs[l]
			depth = max(depth, lc.depth)
		}
	}
	c.flow = flow
	c.depth = depth + int32(c.cost)
}

func indexOf(xs []ir.NodeID, x ir.NodeID) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	panic("optimize: internal error in pass \"lut-map\": leaf not in cut")
}

func maskTable(t uint64, k int) uint64 {
	if k >= 6 {
		return t
	}
	return t & (1<<(1<<k) - 1)
}

// reduceCut drops leaves the function does not depend on.
func reduceCut(c cut) cut {
	for j := 0; j < int(c.n); {
		lo := cofactor(c.table, int(c.n), j, false)
		if lo == cofactor(c.table, int(c.n), j, true) {
			c.table = lo
			copy(c.leaves[j:], c.leaves[j+1:c.n])
			c.n--
			c.native = false
			continue
		}
		j++
	}
	return c
}

// prune keeps the maxCuts best candidates (distinct leaf sets) and returns the
// index of the best feasible one, which is always kept.
func (m *mapper) prune(cand []cut) ([]cut, int32) {
	// A stable sort of the indices by better: the order sort.SliceStable
	// gave the cuts themselves (the generic sort asks only "cmp < 0" where
	// it asked less, in the same algorithm), without moving 100-byte cuts
	// or reflection-based swaps (together a fifth of the mapping's time).
	order := m.order[:0]
	for i := range cand {
		order = append(order, int32(i))
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		if better(&cand[a], &cand[b]) {
			return -1
		}
		return 1
	})
	m.order = order
	kept := make([]cut, 0, maxCuts)
	best := int32(-1)
	for _, i := range order {
		if len(kept) == maxCuts {
			break // nothing more can be kept
		}
		c := &cand[i]
		dup := false
		for j := range kept {
			if kept[j].n == c.n && kept[j].leaves == c.leaves {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		if len(kept) < maxCuts-1 || (len(kept) < maxCuts && (best >= 0 || c.feasible)) {
			if c.feasible && best < 0 {
				best = int32(len(kept))
			}
			kept = append(kept, *c)
		}
	}
	if best < 0 {
		panic("optimize: internal error in pass \"lut-map\": no feasible cut (the native cut is always feasible)")
	}
	return kept, best
}

// better orders cuts: feasible first, then area flow, depth, fewer leaves.
func better(a, b *cut) bool {
	if a.feasible != b.feasible {
		return a.feasible
	}
	if a.flow != b.flow {
		return a.flow < b.flow
	}
	if a.depth != b.depth {
		return a.depth < b.depth
	}
	return a.n < b.n
}

// cover selects the implemented nodes from the outputs down and returns how
// often each node is used (as an output or a leaf of a chosen cut).
func (m *mapper) cover() []int {
	used := make([]int, len(m.c.Nodes))
	for _, bus := range m.c.Outputs {
		for _, id := range bus.Bits {
			used[id]++
		}
	}
	for i := len(m.c.Nodes) - 1; i >= 0; i-- {
		if used[i] == 0 || m.best[i] < 0 {
			continue
		}
		for _, l := range m.cuts[i][m.best[i]].leafSlice() {
			used[l]++
		}
	}
	return used
}

// emit builds the mapped circuit from the chosen cuts.
func (m *mapper) emit() (*ir.Circuit, error) {
	used := m.cover()
	return rebuildSelected(m.c, used, func(b *ir.Builder, id ir.NodeID, nodeOf func(ir.NodeID) ir.NodeID) ir.NodeID {
		nd := &m.c.Nodes[id]
		c := &m.cuts[id][m.best[id]]
		if c.parity {
			leaves := make([]ir.NodeID, c.n)
			for j, l := range c.wide {
				leaves[j] = nodeOf(l)
			}
			return emitParity(b, c, leaves)
		}
		if c.native {
			in := make([]ir.NodeID, len(nd.In))
			for j, x := range nd.In {
				in[j] = nodeOf(x)
			}
			return emitSame(b, nd, in)
		}
		leaves := make([]ir.NodeID, c.n)
		for j, l := range c.leafSlice() {
			leaves[j] = nodeOf(l)
		}
		switch c.n {
		case 0:
			return b.Const(c.table&1 == 1)
		case 1:
			if c.table == 0b10 {
				return leaves[0]
			}
			return b.Not(leaves[0])
		case 2:
			if leaves[0] != leaves[1] {
				return emitTable2(b, c.table, leaves[0], leaves[1])
			}
		}
		// Two leaves may have become one node (hashing); foldLUT merges them.
		return foldLUT(b, c.table, leaves)
	})
}

// expandLUTs rewrites every LUT node the target cannot evaluate (too wide, or
// an unsupported function) as a Shannon tree of MUXes over native gates, so
// that the mapper starts from gates it may always use.
func expandLUTs(c *ir.Circuit, target LUTTarget, k int) (*ir.Circuit, error) {
	needed := false
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op == ir.OpLUT && len(n.In) > 2 && (len(n.In) > k || !target.CanEvalLUT(n.Table, len(n.In))) {
			needed = true
			break
		}
	}
	if !needed {
		return c, nil
	}
	return rebuild(c, func(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID {
		if n.Op == ir.OpLUT && len(in) > 2 && (len(in) > k || !target.CanEvalLUT(n.Table, len(in))) {
			return shannon(b, n.Table, in)
		}
		return emitSame(b, n, in)
	})
}

// shannon emits f = x_last ? f_hi : f_lo recursively down to two inputs.
func shannon(b *ir.Builder, table uint64, in []ir.NodeID) ir.NodeID {
	k := len(in)
	if k <= 2 {
		return foldLUT(b, table, in)
	}
	hi := cofactor(table, k, k-1, true)
	lo := cofactor(table, k, k-1, false)
	return b.Mux(in[k-1], shannon(b, hi, in[:k-1]), shannon(b, lo, in[:k-1]))
}
