package hcc

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
)

// The FHEW engine's wide-table sets: circuit bootstrapping plus vertical
// packing (backend/fhew/cbs). A program for one of them is the source
// after the generic cleanup (optimize.Default); its plan, free XOR layers
// and tables of up to eight inputs, is optimize.MapWide of that circuit
// with the set's options. MapWide is deterministic, so a program read from
// a .hcp file recomputes the same plan (cached per circuit and set) and
// the file format does not change. wideScheme is their fhewKind; their keys,
// ciphertexts and runs are in engine_fhew_wide_eval.go.

// wideLiterals are the sets, secure ones first (not cbs.ToyCBS3: its
// MaxTerms at 2^-50 is below 2, no plan fits it).
var wideLiterals = []cbs.ParamsLiteral{cbs.STD128_CBS, cbs.STD128_CBS_595, cbs.ToyCBS}

// wideMaxTermsCap bounds MapWide's MaxTerms below the set's 2^-50 limit
// (cbs.Params.MaxTerms): wider forms save few refreshes (aes_128's widest
// form has 18 terms) and each one multiplies the failure probability of
// its circuit bootstrap.
const wideMaxTermsCap = 64

// wideCBSFailureLog2 is the failure bound per circuit bootstrap that sets
// MaxTerms.
const wideCBSFailureLog2 = -50

// minWideOutCost is the least price of a table output MapWide is given:
// a set's measured extraction is about 0 (cbs.Params.Cost: 0.001), and a
// small positive price keeps MapWide from adding outputs for nothing
// (0 would also select its fallback of 0.2).
const minWideOutCost = 0.001

// wideCostReference is the set whose prices the insecure wide-table sets
// map with (wideScheme.options).
const wideCostReference = "STD128_CBS"

// isWideSet reports whether name is a wide-table set.
func isWideSet(name string) bool {
	return slices.ContainsFunc(wideLiterals, func(l cbs.ParamsLiteral) bool { return l.Name == name })
}

// wideNames lists the wide-table sets; secure only, or insecure only.
func wideNames(insecure bool) []string {
	var out []string
	for _, l := range wideLiterals {
		if l.Insecure == insecure {
			out = append(out, l.Name)
		}
	}
	return out
}

// wideHelp is the --params help for the wide-table sets (their Security
// statements in short; docs/library.md has them in full).
func wideHelp() string {
	return "; circuit bootstrapping with wide tables (free XOR layers, tables of up to 8 inputs; docs/fhew-cbs.md), 128-bit " +
		fmt.Sprint(wideNames(false)) + " (ring N = 2048, log Q = 54, the HE standard's 128-bit bound; LWE part OpenFHE STD128 / STD128_3)" +
		", insecure with --insecure only: " + fmt.Sprint(wideNames(true))
}

// wideSchemeByName resolves a wide-table set (cached like every scheme).
func wideSchemeByName(name string, allowInsecure bool) (scheme, error) {
	s, err := cachedScheme("fhew/"+name, func() (scheme, error) {
		i := slices.IndexFunc(wideLiterals, func(l cbs.ParamsLiteral) bool { return l.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("fhew: unknown wide-table set %q", name)
		}
		p, err := cbs.NewParamsInsecure(wideLiterals[i]) // refused below, by the one policy
		if err != nil {
			return nil, err
		}
		return &wideScheme{p: p}, nil
	})
	if err != nil {
		return nil, err
	}
	if s.insecure() && !allowInsecure {
		return nil, insecureError(name)
	}
	return s, nil
}

// wideScheme is a validated wide-table set.
type wideScheme struct{ p cbs.Params }

func (s *wideScheme) name() string    { return s.p.Name() }
func (s *wideScheme) insecure() bool  { return s.p.Literal().Insecure }
func (s *wideScheme) warning() string { return "" }
func (s *wideScheme) slots() int      { return 1 }

// options are MapWide's options for the set: its own noise limit
// (MaxTerms at 2^wideCBSFailureLog2 per circuit bootstrap, capped) and
// ring degree, and its own measured prices (cbs.Params.Cost, NAND-
// equivalents of fhew's STD128_LOWFAIL_T, the unit of
// fhew.Params.BootstrapCost), so that the plan is the cheapest on this
// set and its PlanCost compares with the LUT sets' (AutoParams). An
// insecure (Toy) set takes the prices of wideCostReference instead of its
// own scaled estimate: a toy CBS is far cheaper against its tables than a
// real one (0.09 against 0.015 on ToyCBS, 3.1 against 0.06), and its plans
// are there to test the plans the 128-bit sets run. Every field MapWide
// prices is set: its fallbacks are for callers without a parameter set.
func (s *wideScheme) options() (optimize.WideOptions, error) {
	mt := min(s.p.MaxTerms(wideCBSFailureLog2), wideMaxTermsCap)
	if mt < 2 {
		return optimize.WideOptions{}, fmt.Errorf("%s: a circuit bootstrap of a XOR of two table outputs exceeds 2^%d failure", s.name(), wideCBSFailureLog2)
	}
	c := s.p.Cost()
	if s.insecure() {
		ref, err := wideSchemeByName(wideCostReference, false)
		if err != nil {
			return optimize.WideOptions{}, err
		}
		c = ref.(*wideScheme).p.Cost()
	}
	if !(c.CBS > 0 && c.Table > 0) { // 0 would select MapWide's fallback
		return optimize.WideOptions{}, fmt.Errorf("%s: no cost model (CBS %g, table %g NAND-equivalents)", s.name(), c.CBS, c.Table)
	}
	return optimize.WideOptions{MaxTerms: mt, PackSlots: s.p.N(),
		CBSCost: c.CBS, TableCost: c.Table, OutCost: max(c.Output, minWideOutCost)}, nil
}

// widePlanKey identifies a plan: the set and the compiled circuit.
type widePlanKey struct {
	set     string
	circuit [32]byte
}

// widePlans caches plans (a few of them: mapping aes_128 takes a second
// or two, and Compile, Eval and the summaries all need the plan).
var widePlans = struct {
	sync.Mutex
	m map[widePlanKey]*ir.WidePlan
}{m: map[widePlanKey]*ir.WidePlan{}}

const widePlanCacheSize = 8

// plan returns the wide plan of the compiled circuit c on s.
func (s *wideScheme) plan(c *ir.Circuit) (*ir.WidePlan, error) {
	key := widePlanKey{s.name(), circuitHash(c)}
	widePlans.Lock()
	p, ok := widePlans.m[key]
	widePlans.Unlock()
	if ok {
		return p, nil
	}
	opt, err := s.options()
	if err != nil {
		return nil, err
	}
	p, err = optimize.MapWide(c, opt)
	if err != nil {
		return nil, fmt.Errorf("mapping %q to wide tables on %s: %w", c.Name, s.name(), err)
	}
	widePlans.Lock()
	if len(widePlans.m) >= widePlanCacheSize {
		for k := range widePlans.m { // drop one (any): the cache only saves time
			delete(widePlans.m, k)
			break
		}
	}
	widePlans.m[key] = p
	widePlans.Unlock()
	return p, nil
}

// compile is fhewEngine.compile on a wide-table set: the generic cleanup,
// then the plan, which is mapped (and cached) here so that a circuit
// MapWide cannot cover fails at compile time.
func (s *wideScheme) compile(c *ir.Circuit, _ Target, cfg *compileConfig) (*ir.Circuit, error) {
	pipe := optimize.Default()
	if cfg.observe != nil {
		cfg.observe("input", widePassSummary(c))
		pipe.Observe = func(pass string, c *ir.Circuit) { cfg.observe(pass, widePassSummary(c)) }
	}
	d, err := pipe.Run(c)
	if err != nil {
		return nil, fmt.Errorf("compiling %q: %w", c.Name, err)
	}
	plan, err := s.plan(d)
	if err != nil {
		return nil, err
	}
	if cfg.observe != nil {
		cfg.observe("wide-map", s.describe(plan))
	}
	return d, nil
}

// widePassSummary is one line of hcc compile -v before the wide mapping.
func widePassSummary(c *ir.Circuit) string {
	st := c.StatsFor(wideCost())
	return fmt.Sprintf("%6d nodes %6d non-linear gates, non-linear depth %d", st.Nodes, st.Costly, st.CostDepth)
}

// cost is fhewEngine.cost on a wide-table set (wideCost: t's PARITY bound
// and LUT width do not apply).
func (s *wideScheme) cost(Target) ir.Cost { return wideCost() }

// evalCostName is fhewEngine.evalCostName on a wide-table set: Eval runs
// the plan's circuit bootstraps, not the non-linear gates cost counts.
func (s *wideScheme) evalCostName(Target) string { return wideEvalCostName }

// settle is fhewEngine.settle on a wide-table set: it has no PARITY
// bootstraps, so the bound, which would change nothing but the program's
// hash (and make hcc eval warn on every run that --parity-failure is
// ignored), is cleared. Not part of Target.normalized: .hcp files that
// record a bound on a wide-table set still load.
func (s *wideScheme) settle(t Target) Target {
	t.ParityFailureLog2 = 0
	return t
}

// wideCost prices the compiled circuit of a wide-table program: its
// non-linear gates (what the tables absorb; the circuit bootstraps are the
// plan's, see Program.Summary), XOR, NOT, inputs and constants free.
func wideCost() ir.Cost {
	return ir.Cost{Name: "non-linear gates", Of: func(op ir.Op) int {
		switch op {
		case ir.OpInput, ir.OpConst0, ir.OpConst1, ir.OpXor, ir.OpXnor, ir.OpNot, ir.OpParity, ir.OpMOut:
			return 0
		}
		return 1
	}}
}

// validate is fhewEngine.validate on a wide-table set: what MapWide needs
// of each node (ir.Verify checked the rest; no field of t changes a plan),
// without mapping. Loading a .hcp thus costs no mapping (AES: 13 s on
// STD128_CBS), so the client commands (keygen --for, encrypt, decrypt,
// stats) never map; the server maps when it needs the plan, and a circuit
// MapWide cannot cover is refused there with the mapper's error.
func (s *wideScheme) validate(c *ir.Circuit, _ Target) error {
	for i := range c.Nodes {
		switch n := &c.Nodes[i]; n.Op {
		case ir.OpLUT, ir.OpMLUT, ir.OpMOut:
			if _, _, ok := n.TableView(); !ok {
				return fmt.Errorf("node %d (%v) has no readable table for %s", i, n.Op, s.name())
			}
		}
	}
	return nil
}

// summary is Program.Summary on a wide-table set: the plan's cost drivers
// (the source's gate count says nothing about circuit bootstraps).
func (s *wideScheme) summary(_, d *ir.Circuit, _ Target) string {
	plan, err := s.plan(d)
	if err != nil {
		return fmt.Sprintf("no wide plan (%v)", err)
	}
	return s.describe(plan)
}

// details is Program.Details on a wide-table set: the plan's predicted
// failure and the mapper's bounds.
func (s *wideScheme) details(p *Program) string {
	if p.interfaceOnly {
		return "interface only on " + s.name() + " (no wide plan)"
	}
	plan, err := s.plan(p.circuit)
	if err != nil {
		return fmt.Sprintf("no wide plan on %s (%v)", s.name(), err)
	}
	opt, _ := s.options()
	return fmt.Sprintf("%s on %s (wide tables of up to %d inputs, forms of up to %d terms)",
		s.failureLog2Text(plan), s.name(), ir.MaxWideInputs, opt.MaxTerms)
}

// failureLog2Text renders planFailureLog2.
func (s *wideScheme) failureLog2Text(plan *ir.WidePlan) string {
	f := s.planFailureLog2(plan)
	if math.IsInf(f, -1) {
		return "no tables, no failure"
	}
	return fmt.Sprintf("predicted failure 2^%.1f per run", f)
}

// failureLog2 is failureScheme's (Program.FailureLog2): planFailureLog2
// of c's plan; ok false when c has no wide plan or nothing can fail.
func (s *wideScheme) failureLog2(c *ir.Circuit) (float64, bool) {
	plan, err := s.plan(c)
	if err != nil {
		return 0, false
	}
	f := s.planFailureLog2(plan)
	return f, !math.IsInf(f, -1)
}

var _ failureScheme = (*wideScheme)(nil)

// planFailureLog2 is the noise model's failure probability of one run of plan
// (log2): a union bound over every table's circuit bootstraps
// (cbs.Params.TableFailureLog2) and every output's decryption.
func (s *wideScheme) planFailureLog2(plan *ir.WidePlan) float64 {
	var logs []float64
	for i := range plan.Tables {
		t := &plan.Tables[i]
		terms := make([]int, len(t.In))
		for j := range t.In {
			terms[j] = max(1, len(t.In[j].Terms))
		}
		logs = append(logs, s.p.TableFailureLog2(terms))
	}
	tv := max(s.p.TableOutputVar(ir.MaxWideInputs), s.p.Noise().Fresh)
	for i := range plan.OutForms {
		if n := len(plan.OutForms[i].Terms); n > 0 {
			logs = append(logs, s.p.DecryptFailureLog2(float64(n)*tv))
		}
	}
	return log2Sum(logs)
}

// log2Sum is log2 of Σ 2^x over xs (-Inf for none).
func log2Sum(xs []float64) float64 {
	if len(xs) == 0 {
		return math.Inf(-1)
	}
	m := slices.Max(xs)
	if math.IsInf(m, -1) {
		return m
	}
	var sum float64
	for _, x := range xs {
		sum += math.Exp2(x - m)
	}
	return m + math.Log2(sum)
}

// tableDepth is the plan's longest chain of tables (the executor's levels).
func tableDepth(plan *ir.WidePlan) int {
	level := make([]int, plan.NumSignals())
	base := plan.SignalBase()
	depth := 0
	for i := range plan.Tables {
		l := 0
		for _, f := range plan.Tables[i].In {
			for _, x := range f.Terms {
				l = max(l, level[x])
			}
		}
		l++
		for o := range plan.Tables[i].Out {
			level[base[i]+o] = l
		}
		depth = max(depth, l)
	}
	return depth
}

// describe is the summary of a plan: its cost drivers and failure.
func (s *wideScheme) describe(plan *ir.WidePlan) string {
	st := plan.Stats()
	fail := s.failureLog2Text(plan)
	return fmt.Sprintf("%d wide tables (%d refreshes, up to %d inputs), %d circuit bootstraps (%d table inputs), %d table outputs, table depth %d, %s",
		st.Tables, st.Refreshes, st.MaxK, st.DistinctIn, st.CBS, st.TableOuts, tableDepth(plan), fail)
}

// wideAutoCost compiles c for the secure wide-table set name the way
// Compile does and prices it for a parameter choice (AutoParams): the
// compiled circuit, the scheme, the plan's cost in NAND-equivalents of
// fhew's STD128_LOWFAIL_T (optimize.WideOptions.PlanCost with the set's
// options: its measured prices, the unit of fhew.Params.BootstrapCost) and its
// predicted failure per run (log2; -Inf without tables). The plan is
// cached, so compiling the chosen set afterwards does not map again.
func wideAutoCost(c *ir.Circuit, name string) (d *ir.Circuit, s scheme, cost, failureLog2 float64, err error) {
	s, err = wideSchemeByName(name, false)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	ws := s.(*wideScheme)
	if d, err = ws.compile(c, Target{Params: name}, &compileConfig{}); err != nil {
		return nil, nil, 0, 0, err
	}
	plan, err := ws.plan(d)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	opt, err := ws.options()
	if err != nil {
		return nil, nil, 0, 0, err
	}
	cost, err = opt.PlanCost(plan)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	return d, s, cost, ws.planFailureLog2(plan), nil
}

// canTranscipher: the wide-table sets have no AES-CTR keystream yet (the
// transcipher programs are gate-mapped), so they say so instead of the
// generic "engine cannot transcipher".
func (s *wideScheme) canTranscipher() error {
	return fmt.Errorf("parameter set %s (wide tables) cannot transcipher yet: use a gate set such as %s", s.name(), fhewDefaultParams)
}

func (s *wideScheme) newTranscipherKeys() (secretKey, serverKey, error) {
	return nil, nil, s.canTranscipher()
}
