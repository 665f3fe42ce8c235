package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// benchOptions are the flags of `hcc bench fhew`.
type benchOptions struct {
	sets, methods  string
	runs, noise    int
	figure2        bool
	figureSets     string
	windows        string
	compareRuns    int
	out            string
	threads        int
	insecure       bool
	progress       io.Writer // progress lines (a terminal) or nil
	commandLine    string    // for the report
	loadAverage    func() string
	now            func() time.Time
	measureTable3  func(fhew.Params, fhew.MeasureOptions) (fhew.Table3Row, error)
	measureFigure2 func(fhew.Params, []int, fhew.MeasureOptions) ([]fhew.Figure2Point, error)
	measureCompare func(a, b fhew.Params, opt fhew.MeasureOptions, block int) (fhew.Comparison, error)
}

// benchCommand is `hcc bench fhew`: the seed paper's Table 3 and Figure 2
// measured on this machine.
func benchCommand() *command {
	o := &benchOptions{
		measureTable3: fhew.MeasureTable3, measureFigure2: fhew.MeasureFigure2With, measureCompare: fhew.Compare,
		loadAverage: loadAverage, now: time.Now,
	}
	return &command{
		name: "bench", args: "fhew",
		doc: "measure FHEW gate bootstrapping on this machine (Table 3, Figure 2 of the signed-key paper)",
		run: func(e *cmdEnv) error {
			if hccrt.IsTerminal(os.Stderr) {
				o.progress = os.Stderr
			}
			o.commandLine = "hcc " + strings.Join(os.Args[1:], " ")
			return runBench(e, o)
		},
		flags: func(fs *flag.FlagSet, _ *cmdEnv) {
			fs.StringVar(&o.sets, "sets", "", "comma-separated parameter `sets` (default: every 128-bit set)")
			fs.StringVar(&o.methods, "methods", "Signed,LMKCDEY,GINX", "comma-separated blind-rotation `methods`; each runs on the sets it applies to")
			fs.IntVar(&o.runs, "runs", 50, "timed NAND gates per row and per Figure 2 point")
			fs.IntVar(&o.noise, "noise", 1000, "two-input gate sums (two bootstraps each) whose noise is measured per row; 0 skips")
			fs.BoolVar(&o.figure2, "figure2", false, "also sweep the window w for LMKCDEY and Signed (Figure 2) and compare both at their best w")
			fs.StringVar(&o.figureSets, "figure2-sets", "STD128_LMKCDEY_G,STD128_T", "parameter `sets` of the Figure 2 sweep")
			fs.StringVar(&o.windows, "windows", "1-12", "windows w of the Figure 2 sweep (`list`: 1,2,5 or 1-12)")
			fs.IntVar(&o.compareRuns, "compare-runs", 300, "NAND gates per method in the interleaved head-to-head at the best windows")
			fs.StringVar(&o.out, "out", ".", "write fhew-table3.csv, fhew-figure2.{csv,png}, fhew-compare.csv and fhew-bench.md to `DIR`")
			fs.IntVar(&o.threads, "threads", 1, "goroutines timing NAND gates on one shared evaluator (Table 3)")
			fs.BoolVar(&o.insecure, "insecure", false, "allow the insecure Toy sets (for tests)")
		},
	}
}

// benchRow is one (set, method, window) of Table 3.
type benchRow struct {
	set    string
	params fhew.Params
}

// parseWindows reads "1-12" or "1,2,5" (or a mix).
func parseWindows(s string) ([]int, error) {
	var ws []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad window list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("bad window list %q: %w", s, err)
			}
		}
		if a < 1 || b < a {
			return nil, fmt.Errorf("bad window list %q: windows are positive, ranges increasing", s)
		}
		for w := a; w <= b; w++ {
			ws = append(ws, w)
		}
	}
	return ws, nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func parseMethod(s string) (fhew.Method, error) {
	for _, m := range []fhew.Method{fhew.MethodSigned, fhew.MethodLMKCDEY, fhew.MethodGINX} {
		if strings.EqualFold(s, m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown method %q (want Signed, LMKCDEY or GINX)", s)
}

// lmkcdeyWindow is LMKCDEY's w when a set's own method is another one: the
// paper's Table 3 row and OpenFHE's default number of automorphism keys.
const lmkcdeyWindow = 10

// loadSet resolves a set name, refusing Toy sets without --insecure.
func (o *benchOptions) loadSet(name string) (fhew.Params, error) {
	p, err := fhew.ParamsByName(name, o.insecure)
	if errors.Is(err, fhew.ErrInsecure) || (err == nil && p.Literal().Insecure && !o.insecure) {
		return fhew.Params{}, fmt.Errorf("parameter set %s is insecure: pass --insecure to measure it anyway", name)
	}
	return p, err
}

// tableOrder is the row order of Table 3: the paper's set, OpenFHE's two,
// then hcc's low-failure sets; any other secure set follows by name.
var tableOrder = []string{"STD128_LMKCDEY_G", "STD128_T", "STD128_GINX", "STD128_LOWFAIL_T", "STD128_LOWFAIL3_T"}

// secureSets lists the named sets that are not Toy sets, in tableOrder.
func secureSets() []string {
	var out []string
	for _, name := range tableOrder {
		if p, err := fhew.ParamsByName(name, false); err == nil && !p.Literal().Insecure {
			out = append(out, name)
		}
	}
	for _, name := range fhew.Names() {
		if p, err := fhew.ParamsByName(name, false); err == nil && !p.Literal().Insecure && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// withMethod returns p with method m at its window (the set's own window,
// or lmkcdeyWindow for LMKCDEY on a set made for another method); ok is
// false when m does not apply (GINX needs a ternary or binary LWE secret).
func withMethod(p fhew.Params, m fhew.Method) (fhew.Params, bool, error) {
	lit := p.Literal()
	if m == lit.Method {
		return p, true, nil
	}
	if m == fhew.MethodGINX && lit.LWESecret == fhew.SecretGaussian {
		return fhew.Params{}, false, nil
	}
	w := lit.Window
	if m == fhew.MethodLMKCDEY {
		w = lmkcdeyWindow
	}
	q, err := p.WithMethod(m, w)
	return q, err == nil, err
}

func (o *benchOptions) rows() ([]benchRow, error) {
	names := splitList(o.sets)
	if len(names) == 0 {
		names = secureSets()
	}
	var methods []fhew.Method
	for _, s := range splitList(o.methods) {
		m, err := parseMethod(s)
		if err != nil {
			return nil, err
		}
		methods = append(methods, m)
	}
	var rows []benchRow
	for _, name := range names {
		p, err := o.loadSet(name)
		if err != nil {
			return nil, err
		}
		for _, m := range methods {
			q, ok, err := withMethod(p, m)
			if err != nil {
				return nil, fmt.Errorf("%s with %s: %w", name, m, err)
			}
			if ok {
				rows = append(rows, benchRow{set: name, params: q})
			}
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("no (set, method) pair to measure")
	}
	return rows, nil
}

// progressPrinter draws one status line at most every 100 ms; it is safe
// for concurrent use (Table 3 rows with --threads report from several
// goroutines).
type progressPrinter struct {
	w      io.Writer
	mu     sync.Mutex
	last   time.Time
	prefix string
}

func (pp *progressPrinter) set(prefix string) {
	if pp.w == nil {
		return
	}
	pp.mu.Lock()
	pp.prefix = prefix
	pp.last = time.Time{}
	pp.mu.Unlock()
}

func (pp *progressPrinter) report(stage string, done, total int) {
	if pp.w == nil {
		return
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if now := time.Now(); done == total || now.Sub(pp.last) > 100*time.Millisecond {
		pp.last = now
		fmt.Fprintf(pp.w, "\r\033[K%s: %s %d/%d", pp.prefix, stage, done, total)
	}
}

func (pp *progressPrinter) done() {
	if pp.w != nil {
		fmt.Fprint(pp.w, "\r\033[K")
	}
}

func runBench(e *cmdEnv, o *benchOptions) error {
	if e.args[0] != "fhew" {
		return fmt.Errorf("unknown benchmark %q (only fhew)", e.args[0])
	}
	if o.runs < 1 || o.noise < 0 || o.threads < 1 || o.compareRuns < 0 {
		return fmt.Errorf("--runs and --threads must be positive, --noise and --compare-runs not negative")
	}
	rows, err := o.rows()
	if err != nil {
		return err
	}
	var windows []int
	var figureSets []fhew.Params
	if o.figure2 {
		if windows, err = parseWindows(o.windows); err != nil {
			return err
		}
		for _, name := range splitList(o.figureSets) {
			p, err := o.loadSet(name)
			if err != nil {
				return err
			}
			figureSets = append(figureSets, p)
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	rep := &benchReport{command: o.commandLine, started: o.now(), loadBefore: o.loadAverage(), threads: o.threads, runs: o.runs}
	pp := &progressPrinter{w: o.progress}
	opt := fhew.MeasureOptions{NAND: o.runs, NoiseSamples: o.noise, Threads: o.threads, Progress: pp.report}
	for i, r := range rows {
		p := r.params
		pp.set(fmt.Sprintf("[%d/%d] %s %s w=%d", i+1, len(rows), r.set, p.Method(), p.Window()))
		row, err := o.measureTable3(p, opt)
		if err != nil {
			pp.done()
			return fmt.Errorf("%s %s: %w", r.set, p.Method(), err)
		}
		rep.table = append(rep.table, row)
	}
	if o.figure2 {
		fopt := fhew.MeasureOptions{NAND: o.runs, Progress: pp.report}
		for i, base := range figureSets {
			pp.set(fmt.Sprintf("[Figure 2, %d/%d]", i+1, len(figureSets)))
			pts, err := o.measureFigure2(base, windows, fopt)
			if err != nil {
				pp.done()
				return fmt.Errorf("figure 2 at %s: %w", base.Name(), err)
			}
			rep.figure = append(rep.figure, pts...)
			if o.compareRuns == 0 {
				continue
			}
			pp.set(fmt.Sprintf("[head-to-head %s]", base.Name()))
			c, err := o.compareAtBest(base, pts, o.compareRuns, pp.report)
			if err != nil {
				pp.done()
				return fmt.Errorf("head-to-head at %s: %w", base.Name(), err)
			}
			rep.compare = append(rep.compare, c)
		}
	}
	pp.done()
	rep.loadAfter = o.loadAverage()
	rep.elapsed = o.now().Sub(rep.started)
	if err := rep.write(e.stdout, o.out); err != nil {
		return err
	}
	return nil
}

// compareAtBest times Signed and LMKCDEY interleaved, each at the window
// with its lowest median in the sweep pts.
func (o *benchOptions) compareAtBest(base fhew.Params, pts []fhew.Figure2Point, runs int, progress func(string, int, int)) (fhew.Comparison, error) {
	best := func(m fhew.Method) int {
		bw, bt := 0, 0.0
		for _, pt := range pts {
			if pt.Method == m && (bw == 0 || pt.NANDMedianMs < bt) {
				bw, bt = pt.Window, pt.NANDMedianMs
			}
		}
		return bw
	}
	ps, err := base.WithMethod(fhew.MethodSigned, best(fhew.MethodSigned))
	if err != nil {
		return fhew.Comparison{}, err
	}
	pl, err := base.WithMethod(fhew.MethodLMKCDEY, best(fhew.MethodLMKCDEY))
	if err != nil {
		return fhew.Comparison{}, err
	}
	return o.measureCompare(ps, pl, fhew.MeasureOptions{NAND: runs, Progress: progress}, 0)
}

// loadAverage returns the 1/5/15-minute load averages (Linux), or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// outPath joins the output directory and a file name.
func outPath(dir, name string) string { return filepath.Join(dir, name) }

// methodsOf lists the distinct methods of pts in order of appearance.
func methodsOf(pts []fhew.Figure2Point) []fhew.Method {
	var ms []fhew.Method
	for _, p := range pts {
		if !slices.Contains(ms, p.Method) {
			ms = append(ms, p.Method)
		}
	}
	return ms
}
