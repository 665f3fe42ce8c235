package ir

import (
	"bytes"
	"errors"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// shuffled renumbers c's nodes by a random permutation (breaking the
// topological order) without changing its function.
func shuffled(c *Circuit, seed uint64) *Circuit {
	rng := rand.New(rand.NewPCG(seed, 9))
	perm := rng.Perm(len(c.Nodes)) // old -> new
	d := c.Clone()
	for old := range c.Nodes {
		n := c.Nodes[old]
		n.In = append([]NodeID(nil), n.In...)
		for j := range n.In {
			n.In[j] = NodeID(perm[n.In[j]])
		}
		d.Nodes[perm[old]] = n
	}
	for _, bs := range [][]Bus{d.Inputs, d.Outputs} {
		for i := range bs {
			for j := range bs[i].Bits {
				bs[i].Bits[j] = NodeID(perm[bs[i].Bits[j]])
			}
		}
	}
	return d
}

func TestSort(t *testing.T) {
	c := loadShared(t, "adder64.txt")
	s, err := Sort(c)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, c) {
		t.Error("sorting a sorted circuit changed it")
	}
	d := shuffled(c, 1)
	if IsSorted(d) {
		t.Fatal("shuffle kept the order")
	}
	if err := Verify(d); err == nil {
		t.Fatal("Verify accepted an unsorted circuit")
	}
	e, err := Sort(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(e); err != nil {
		t.Fatal(err)
	}
	sameFunction(t, c, e, 2)
	if e.Stats() != c.Stats() {
		t.Errorf("stats changed: %v vs %v", e.Stats(), c.Stats())
	}
	e2, _ := Sort(d)
	if !reflect.DeepEqual(e, e2) {
		t.Error("Sort is not deterministic")
	}
}

func TestSortCycle(t *testing.T) {
	c := rippleAdder(t, 4).Clone()
	// Feed the last gate into the first AND: a cycle through the carry chain.
	last := NodeID(len(c.Nodes) - 1)
	for i := range c.Nodes {
		if c.Nodes[i].Op == OpAnd {
			c.Nodes[i].In[0] = last
			break
		}
	}
	_, err := Sort(c)
	var ce *CycleError
	if !errors.As(err, &ce) || len(ce.Cycles) != 1 || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("got %v, want one cycle", err)
	}
	for _, id := range ce.Cycles[0] {
		if int(id) >= len(c.Nodes) {
			t.Fatalf("cycle names missing node %d", id)
		}
	}
}

func TestLevelsAndCriticalPath(t *testing.T) {
	c := rippleAdder(t, 8)
	lv := Levels(c, UnitCost)
	path := CriticalPath(c, UnitCost)
	s := c.Stats()
	if len(path) != s.Depth+1 {
		t.Fatalf("critical path has %d nodes, depth is %d", len(path), s.Depth)
	}
	if c.Nodes[path[0]].Op.IsGate() {
		t.Error("path does not start at a source")
	}
	for i := 1; i < len(path); i++ {
		if !slicesContains(c.Nodes[path[i]].In, path[i-1]) {
			t.Fatalf("path step %d: node %d does not read node %d", i, path[i], path[i-1])
		}
		if lv[path[i]] != lv[path[i-1]]+1 {
			t.Fatalf("path step %d skips a level", i)
		}
	}
	// Carry chain of an 8-bit ripple adder: bit 0 has one AND; each later bit
	// adds AND then OR, and the sum XOR or carry out ends the path.
	if s.AndDepth != 15 {
		t.Errorf("AND-depth %d, want 15", s.AndDepth)
	}
	g := Graph(c)
	if g.Nodes().Len() != len(c.Nodes) {
		t.Errorf("graph has %d nodes, want %d", g.Nodes().Len(), len(c.Nodes))
	}
}

func slicesContains(s []NodeID, x NodeID) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func TestANF(t *testing.T) {
	for k := 1; k <= 6; k++ {
		for trial := 0; trial < 50; trial++ {
			tbl := rand.Uint64()
			if k < 6 {
				tbl &= 1<<(1<<k) - 1
			}
			anf := ANF(tbl, k)
			if ANF(anf, k) != tbl {
				t.Fatalf("k=%d: ANF is not an involution on %#x", k, tbl)
			}
			// Evaluate the ANF directly: f(x) = XOR over monomials m ⊆ x.
			for x := uint64(0); x < 1<<k; x++ {
				v := uint64(0)
				for m := uint64(0); m < 1<<k; m++ {
					if anf>>m&1 == 1 && m&^x == 0 {
						v ^= 1
					}
				}
				if v != tbl>>x&1 {
					t.Fatalf("k=%d table %#x: ANF wrong at %d", k, tbl, x)
				}
			}
		}
	}
	affine := map[uint64]bool{0x6: true, 0x9: true, 0x96: true, 0xa: true, 0x0: true, 0x8: false, 0xe8: false, 0xca: false}
	for tbl, want := range affine {
		k := 2
		if tbl > 0xf {
			k = 3
		}
		if got := IsAffineLUT(tbl, k); got != want {
			t.Errorf("IsAffineLUT(%#x, %d) = %v", tbl, k, got)
		}
	}
	// AND of all six inputs is one monomial; NOR of all six (only f(0) = 1)
	// expands to every monomial.
	if ANF(1<<63, 6) != 1<<63 || bits.OnesCount64(ANF(1, 6)) != 64 {
		t.Errorf("ANF of 6-input AND/NOR: %#x %#x", ANF(1<<63, 6), ANF(1, 6))
	}
}

func TestStatsAllOps(t *testing.T) {
	c := allOpsCircuit(t)
	s := c.Stats()
	for op := OpNot; op <= OpMux; op++ {
		if s.Count[op] != 1 {
			t.Errorf("%v count %d, want 1", op, s.Count[op])
		}
	}
	if s.Count[OpLUT] != 6 || s.Count[OpInput] != 10 {
		t.Errorf("LUT %d INPUT %d", s.Count[OpLUT], s.Count[OpInput])
	}
	if s.Count[OpParity] != 2 {
		t.Errorf("PARITY %d", s.Count[OpParity])
	}
	if s.Gates != 17 || s.AndDepth != 1 || s.Depth != 1 || s.Costly != 0 || strings.Contains(s.String(), "bootstrap") {
		t.Errorf("unexpected stats:\n%v", s)
	}
	s = c.StatsFor(twoBootstrapMux)
	if s.Costly != 17 || s.CostDepth != 2 { // 16 bootstrapped gates, the MUX twice
		t.Errorf("unexpected stats:\n%v", s)
	}
	for _, want := range []string{"circuit:         allops", "  LUT:           6", "and-depth:       1", "bootstraps:      17", "bootstrap-depth: 2", "  PARITY:        2"} {
		if !strings.Contains(s.String(), want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
}

func TestWriteDOT(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteDOT(&buf, oddCircuit(t)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`digraph "odd name \"q\"" {`, `label="LUT3 0x6a"`, `label="x y[3]", shape=box`, `label="σ[0]"`, "color=red", "}\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("DOT lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "{") != strings.Count(out, "}") {
		t.Error("unbalanced braces")
	}
}

func TestReadWriteFile(t *testing.T) {
	dir := t.TempDir()
	c := allOpsCircuit(t)
	for _, name := range []string{"a.hir", "b.txt", "c.circuit"} {
		p := filepath.Join(dir, name)
		if err := WriteFile(p, c); err != nil {
			t.Fatal(err)
		}
		d, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if name == "b.txt" {
			if d.Name != "b" || d.Inputs[0].Name != "in0" {
				t.Errorf("Bristol import named %q / %q", d.Name, d.Inputs[0].Name)
			}
		} else if !reflect.DeepEqual(c, d) {
			t.Errorf("%s: circuit changed", name)
		}
		sameFunction(t, c, d, 2)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.hir")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("1 2\n1 1\n1 1\n1 1 0 1 FOO\n"), 0o644)
	if _, err := ReadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":4: ") {
		t.Errorf("bad file: %v", err)
	}
}
