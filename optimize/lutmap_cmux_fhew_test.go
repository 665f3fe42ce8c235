package optimize_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/internal/testenv"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/optimize"
)

// cmuxBefore is docs/fhew-luts.md section 4's "before" column
// (STD128_LOWFAIL_T bootstraps = NAND-equivalents before the LUT work).
var cmuxBefore = map[string]int{
	"AES-non-expanded.txt": 15857, "adder64.txt": 126, "aes_128.txt": 15750, "divide64.txt": 12284,
	"mult64.txt": 5984, "neg64.txt": 124, "sub64.txt": 126, "udivide64.txt": 6180, "zero_equal.txt": 63,
	"sort8": 1036, "argmax8": 175, "cmp32": 158,
}

// TestCMuxTable maps every circuit of ../shared/circuits and the mux-heavy
// HDL circuits on STD128_T and on STD128_T_CMUX (the same gates plus the
// CMux gadget; an OpSel counted at SelectBootstraps gate bootstraps and
// priced, as the mapper does, at SelectCost), each tightened until a run's
// predicted failure is within 2^-40, checks the CMux mapping equivalent to
// its input and within the target, and fails if its price costs more than
// STD128_T's. Opt-in (minutes): HCC_CMUX_TABLE=1, and
// HCC_CMUX_FILES=a.txt,b.txt,sort8 to restrict the circuits.
func TestCMuxTable(t *testing.T) {
	if os.Getenv("HCC_CMUX_TABLE") != "1" {
		t.Skip("set HCC_CMUX_TABLE=1 (maps every shared circuit twice; minutes)")
	}
	type job struct {
		name string
		c    *ir.Circuit
	}
	var jobs []job
	dir := testenv.SharedCircuits(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	if s := os.Getenv("HCC_CMUX_FILES"); s != "" {
		for _, f := range strings.Split(s, ",") {
			want[f] = true
		}
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".txt") || (len(want) > 0 && !want[e.Name()]) {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		c, err := ir.ReadBristol(f, e.Name())
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{e.Name(), c})
	}
	for _, name := range []string{"sort8", "argmax8", "cmp32"} {
		if len(want) > 0 && !want[name] {
			continue
		}
		c, err := lang.CompileFile(filepath.Join("..", "tests", "testdata", "muxheavy.hdl"), lang.Options{Circuit: name})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{name, c})
	}
	cand := func(lit fhew.ParamsLiteral) optimize.LUTCandidate {
		p, err := fhew.NewParams(lit)
		if err != nil {
			t.Fatal(err)
		}
		return optimize.LUTCandidate{
			Name: lit.Name, Cost: p.BootstrapCost(),
			Target: func(b float64) optimize.LUTTarget {
				return fhew.NewLUTTarget(p, b).WithParityFailure(min(fhew.DefaultParityFailureLog2, b))
			},
			Failure: func(c *ir.Circuit) (float64, error) {
				f, err := p.CircuitFailure(c)
				return f.Log2Failure, err
			},
		}
	}
	plain, cmux := cand(fhew.STD128_T), cand(fhew.STD128_T_CMUX)
	pc, err := fhew.NewParams(fhew.STD128_T_CMUX)
	if err != nil {
		t.Fatal(err)
	}
	ctg := fhew.NewLUTTarget(pc, -40) // for the OpSel's count and price
	for _, j := range jobs {
		start := time.Now()
		// A set that misses the run's target (sort8 on STD128_T: 2^-32 at
		// LUTs within 2^-79) still reports its last mapping.
		a, err := optimize.ChooseLUTSet(j.c, []optimize.LUTCandidate{plain}, -40, 6)
		if len(a) == 0 {
			t.Fatalf("%s: %v", j.name, err)
		}
		mid := time.Now()
		b, err := optimize.ChooseLUTSet(j.c, []optimize.LUTCandidate{cmux}, -40, 6)
		if len(b) == 0 {
			t.Fatalf("%s: %v", j.name, err)
		}
		end := time.Now()
		d := b[0].Circuit
		circuittest.EquivalentRounds(t, j.c, d, 4)
		st := d.Stats()
		refreshes := 0
		for i := range d.Nodes {
			if n := &d.Nodes[i]; n.Op == ir.OpLUT && len(n.In) == 1 && n.Table == 0b10 {
				refreshes++
			}
		}
		// The longest chain of CMuxes through their data inputs (NOTs free).
		chain, longest := make([]int, len(d.Nodes)), 0
		for i := range d.Nodes {
			switch n := &d.Nodes[i]; n.Op {
			case ir.OpNot:
				chain[i] = chain[n.In[0]]
			case ir.OpCMux:
				chain[i] = max(chain[n.In[1]], chain[n.In[2]]) + 1
				longest = max(longest, chain[i])
			}
		}
		before := float64(cmuxBefore[j.name])
		// priced: NAND-equivalents with every OpSel at SelectCost (what
		// LUTMap minimises and ChooseLUTSet compares: b[0].Cost); counted
		// takes it at SelectBootstraps (b[0].Bootstraps, the reports).
		sels := float64(st.Count[ir.OpSel])
		priced, counted := b[0].Cost, float64(b[0].Bootstraps)*cmux.Cost
		if want := counted - sels*(float64(ctg.SelectBootstraps())-ctg.SelectCost())*cmux.Cost; math.Abs(priced-want) > 1e-6 {
			t.Errorf("%s: LUTChoice.Cost %.3f, want the priced %.3f (counted %.3f, %.0f SEL)", j.name, priced, want, counted, sels)
		}
		t.Logf("%-20s STD128_T %6d × %.2f = %7.0f (%.3f of before; failure 2^%.1f%s) in %5.1fs | STD128_T_CMUX %6d = %7.0f, priced %7.0f (%.3f of before, %.3f of STD128_T; %d SEL, %d CMUX, chains up to %d, %d refreshes; failure 2^%.1f%s, LUTs 2^%.0f) in %5.1fs",
			j.name, a[0].Bootstraps, a[0].Cost/float64(max(a[0].Bootstraps, 1)), a[0].Cost, a[0].Cost/before, a[0].Log2Failure, okMark(a[0].OK), mid.Sub(start).Seconds(),
			b[0].Bootstraps, counted, priced, priced/before, priced/max(a[0].Cost, 1e-9), st.Count[ir.OpSel], st.Count[ir.OpCMux], longest, refreshes,
			b[0].Log2Failure, okMark(b[0].OK), b[0].LUTFailureLog2, end.Sub(mid).Seconds())
		if !b[0].OK && a[0].OK {
			t.Errorf("%s: STD128_T_CMUX misses the failure target that STD128_T meets", j.name)
		}
		if priced > a[0].Cost+1e-9 {
			t.Errorf("%s: STD128_T_CMUX costs %.0f, more than STD128_T's %.0f", j.name, priced, a[0].Cost)
		}
	}
}

// okMark flags a result over the run's failure target.
func okMark(ok bool) string {
	if ok {
		return ""
	}
	return " OVER"
}
