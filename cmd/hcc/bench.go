package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/fhewbench"
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
	measureTable3  func(fhew.Params, fhewbench.Options) (fhewbench.Table3Row, error)
	measureFigure2 func(fhew.Params, []int, fhewbench.Options) ([]fhewbench.Figure2Point, error)
	measureCompare func(base fhew.Params, sweep []fhewbench.Figure2Point, opt fhewbench.Options) (fhewbench.Comparison, error)
}

// benchCommand is `hcc bench fhew`: the seed paper's Table 3 and Figure 2
// measured on this machine by package fhewbench; this file parses the flags
// and reports progress, bench_report.go and bench_plot.go print.
func benchCommand() *command {
	o := &benchOptions{
		measureTable3: fhewbench.MeasureTable3, measureFigure2: fhewbench.MeasureFigure2With, measureCompare: fhewbench.CompareAtBest,
		loadAverage: loadAverage, now: time.Now,
	}
	aes := &benchAESOptions{}                                     // bench_aes.go
	gad := &benchGadgetOptions{measure: fhewbench.MeasureGadgets} // bench_gadgets.go
	return &command{
		name: "bench", args: "fhew|aes|gadgets",
		doc: "measure FHEW gate bootstrapping (Table 3, Figure 2 of the signed-key paper), AES-128 under FHE (aes) or the FHEW gadgets in NANDs (gadgets) on this machine",
		run: func(e *cmdEnv) error {
			if e.args[0] == "aes" {
				return runBenchAES(e, aes)
			}
			// The other aes flags are harmless elsewhere; this one would
			// claim a measurement that does not happen.
			if aes.inputRGSW {
				return fmt.Errorf("--input-rgsw applies to hcc bench aes (its fhew row on a wide-table set), not to bench %s", e.args[0])
			}
			if hccrt.IsTerminal(os.Stderr) {
				o.progress = os.Stderr
			}
			o.commandLine = "hcc " + strings.Join(os.Args[1:], " ")
			if e.args[0] == "gadgets" {
				return runBenchGadgets(e, o, gad)
			}
			return runBench(e, o)
		},
		flags: func(fs *flag.FlagSet, _ *cmdEnv) {
			aes.flags(fs)
			gad.flags(fs)
			fs.StringVar(&o.sets, "sets", "", "comma-separated parameter `sets` (default: every 128-bit set; gadgets: "+strings.Join(fhewbench.DefaultGadgetSets, ",")+")")
			fs.StringVar(&o.methods, "methods", "Signed,LMKCDEY,GINX", "comma-separated blind-rotation `methods`; each runs on the sets it applies to")
			fs.IntVar(&o.runs, "runs", 50, "timed NAND gates per row and per Figure 2 point")
			fs.IntVar(&o.noise, "noise", 1000, "two-input gate sums (two bootstraps each) whose noise is measured per row; 0 skips")
			fs.BoolVar(&o.figure2, "figure2", false, "also sweep the window w for LMKCDEY and Signed (Figure 2) and compare both at their best w")
			fs.StringVar(&o.figureSets, "figure2-sets", "STD128_LMKCDEY_G,STD128_T", "parameter `sets` of the Figure 2 sweep")
			fs.StringVar(&o.windows, "windows", "1-12", "windows w of the Figure 2 sweep (`list`: 1,2,5 or 1-12)")
			fs.IntVar(&o.compareRuns, "compare-runs", 300, "NAND gates per method in the interleaved head-to-head at the best windows")
			fs.StringVar(&o.out, "out", ".", "write fhew-table3.csv, fhew-figure2.{csv,png}, fhew-compare.csv and fhew-bench.md (gadgets: gadgets.csv, gadgets.md) to `DIR`")
			fs.IntVar(&o.threads, "threads", 1, "goroutines timing NAND gates on one shared evaluator (Table 3)")
			fs.BoolVar(&o.insecure, "insecure", false, "allow the insecure Toy sets (for tests)")
		},
	}
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// loadSet resolves a set name, refusing Toy sets without --insecure.
func (o *benchOptions) loadSet(name string) (fhew.Params, error) {
	p, err := fhew.ParamsByName(name, o.insecure)
	if errors.Is(err, fhew.ErrInsecure) || (err == nil && p.Literal().Insecure && !o.insecure) {
		return fhew.Params{}, fmt.Errorf("parameter set %s is insecure: pass --insecure to measure it anyway", name)
	}
	return p, err
}

// rows resolves --sets (default: every secure set) and --methods into the
// rows of Table 3.
func (o *benchOptions) rows() ([]fhewbench.Row, error) {
	names := splitList(o.sets)
	if len(names) == 0 {
		names = fhewbench.SecureSets()
	}
	var methods []fhew.Method
	for _, s := range splitList(o.methods) {
		m, err := fhewbench.ParseMethod(s)
		if err != nil {
			return nil, err
		}
		methods = append(methods, m)
	}
	var sets []fhew.Params
	for _, name := range names {
		p, err := o.loadSet(name)
		if err != nil {
			return nil, err
		}
		sets = append(sets, p)
	}
	return fhewbench.Plan(sets, methods)
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
		return fmt.Errorf("unknown benchmark %q (fhew, aes or gadgets)", e.args[0])
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
		if windows, err = fhewbench.ParseWindows(o.windows); err != nil {
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
	opt := fhewbench.Options{NAND: o.runs, NoiseSamples: o.noise, Threads: o.threads, Progress: pp.report}
	for i, r := range rows {
		p := r.Params
		pp.set(fmt.Sprintf("[%d/%d] %s %s w=%d", i+1, len(rows), r.Set, p.Method(), p.Window()))
		row, err := o.measureTable3(p, opt)
		if err != nil {
			pp.done()
			return fmt.Errorf("%s %s: %w", r.Set, p.Method(), err)
		}
		rep.table = append(rep.table, row)
	}
	if o.figure2 {
		fopt := fhewbench.Options{NAND: o.runs, Progress: pp.report}
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
			c, err := o.measureCompare(base, pts, fhewbench.Options{NAND: o.compareRuns, Progress: pp.report})
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
func methodsOf(pts []fhewbench.Figure2Point) []fhew.Method {
	var ms []fhew.Method
	for _, p := range pts {
		if !slices.Contains(ms, p.Method) {
			ms = append(ms, p.Method)
		}
	}
	return ms
}
