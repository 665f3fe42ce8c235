package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
	"github.com/hcc-fhe/hcc/backend/fhew/fhewbench"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// benchGadgetOptions are the flags of `hcc bench gadgets` beyond the ones
// it shares with bench fhew (--sets, --out, --insecure); the measuring is
// fhewbench.MeasureGadgets's.
type benchGadgetOptions struct {
	rounds           int
	ref, cbsSet, cmx string
	multiOutput      bool
	measure          func(fhewbench.GadgetOptions) (*fhewbench.GadgetResult, error)
}

// flags registers bench gadgets's flags on bench's flag set (the other
// benchmarks ignore them).
func (g *benchGadgetOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&g.rounds, "rounds", fhewbench.DefaultGadgetRounds, "gadgets: interleaved rounds (`N`), each timing every gadget once between two reference NANDs")
	fs.StringVar(&g.ref, "ref", "STD128_LOWFAIL_T", "gadgets: the FHEW `set` whose NAND is the unit of every ratio")
	fs.StringVar(&g.cbsSet, "cbs-set", cbs.STD128_CBS.Name, "gadgets: the circuit-bootstrapping `set` of the CBS and table rows (none: skip them)")
	fs.StringVar(&g.cmx, "cmux-set", fhew.STD128_T_CMUX.Name, "gadgets: the FHEW `set` with the CMux gadget of the Select and CMux rows (none: skip them)")
	fs.BoolVar(&g.multiOutput, "multi-output", true, "gadgets: also time a multi-output bootstrap with 1 and with 4 outputs at the reference set")
}

// runBenchGadgets is `hcc bench gadgets`: every gadget's price in NANDs of
// the reference set, timed interleaved, as a Markdown table on stdout and
// gadgets.{csv,md} in --out.
func runBenchGadgets(e *cmdEnv, o *benchOptions, g *benchGadgetOptions) error {
	if g.rounds < 1 {
		return fmt.Errorf("--rounds must be at least 1, got %d", g.rounds)
	}
	ref, err := o.loadSet(g.ref)
	if err != nil {
		return err
	}
	opt := fhewbench.GadgetOptions{Rounds: g.rounds, Reference: ref, MultiOutput: g.multiOutput, CPU: hccrt.ProcessCPU}
	names := splitList(o.sets)
	if len(names) == 0 {
		names = fhewbench.DefaultGadgetSets
	}
	for _, name := range names {
		p, err := o.loadSet(name)
		if err != nil {
			return err
		}
		opt.NANDSets = append(opt.NANDSets, p)
	}
	if !isNone(g.cbsSet) {
		p, err := cbs.ParamsByName(g.cbsSet, o.insecure)
		if errors.Is(err, cbs.ErrInsecure) {
			return fmt.Errorf("parameter set %s is insecure: pass --insecure to measure it anyway", g.cbsSet)
		}
		if err != nil {
			return err
		}
		opt.CBS = &p
	}
	if !isNone(g.cmx) {
		p, err := o.loadSet(g.cmx)
		if err != nil {
			return err
		}
		if !p.HasCMux() {
			return fmt.Errorf("--cmux-set %s has no CMux gadget (want a set such as %s)", g.cmx, fhew.STD128_T_CMUX.Name)
		}
		opt.CMux = &p
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	pp := &progressPrinter{w: o.progress}
	pp.set("[gadgets]")
	opt.Progress = pp.report
	rep := &gadgetReport{command: o.commandLine, started: o.now(), loadBefore: o.loadAverage()}
	cpu0, cpuOK := hccrt.ProcessCPU()
	res, err := g.measure(opt)
	pp.done()
	if err != nil {
		return err
	}
	rep.elapsed = o.now().Sub(rep.started)
	if cpu1, ok := hccrt.ProcessCPU(); ok && cpuOK {
		rep.cpu, rep.cpuKnown = cpu1-cpu0, true
	}
	rep.loadAfter = o.loadAverage()
	rep.res = res
	var md bytes.Buffer
	rep.markdown(&md)
	if _, err := e.stdout.Write(md.Bytes()); err != nil {
		return err
	}
	for _, f := range []outFile{
		{"gadgets.csv", func(w io.Writer) error { return fhewbench.WriteGadgetsCSV(w, res) }},
		{"gadgets.md", func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err }},
	} {
		if err := writeFile(outPath(o.out, f.name), f.write); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	if n := res.Wrong(); n > 0 {
		return fmt.Errorf("%d result(s) decrypted wrongly (see the table's notes)", n)
	}
	return nil
}

// isNone reports whether a set flag asks to skip its rows.
func isNone(s string) bool { s = strings.TrimSpace(s); return s == "" || strings.EqualFold(s, "none") }

// gadgetReport is one `hcc bench gadgets` run with its conditions.
type gadgetReport struct {
	command               string
	started               time.Time
	elapsed               time.Duration
	loadBefore, loadAfter string
	cpu                   time.Duration // CPU the process received over the whole run
	cpuKnown              bool
	res                   *fhewbench.GadgetResult
}

// markdown renders the conditions (load, CPU received) and the table.
func (r *gadgetReport) markdown(w io.Writer) {
	res := r.res
	fmt.Fprintf(w, "# hcc bench gadgets\n\n")
	fmt.Fprintf(w, "- command: `%s`\n", r.command)
	fmt.Fprintf(w, "- date: %s, took %s (keys and set-up %.1f s, %d rounds %.1f s)\n", r.started.UTC().Format(time.RFC3339),
		r.elapsed.Round(100*time.Millisecond), res.KeyGenSec, res.Rounds, res.RoundsSec)
	fmt.Fprintf(w, "- machine: %s, %d logical CPUs, GOMAXPROCS %d, %s %s/%s\n", cpuModel(), goruntime.NumCPU(),
		goruntime.GOMAXPROCS(0), goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
	fmt.Fprintf(w, "- load average (1/5/15 min): %s before, %s after\n", r.loadBefore, r.loadAfter)
	if c := res.ReceivedCores(); !math.IsNaN(c) {
		fmt.Fprintf(w, "- CPU received by the timed rounds (one goroutine): %.1f s over %.1f s wall = %.2f of one core", res.RoundsCPUSec, res.RoundsSec, c)
		if r.cpuKnown && r.elapsed > 0 {
			fmt.Fprintf(w, "; whole run %.1f s CPU over %.1f s wall (%.2f cores)", r.cpu.Seconds(), r.elapsed.Seconds(), r.cpu.Seconds()/r.elapsed.Seconds())
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "- CPU received: unknown on this system")
	}
	fmt.Fprintf(w, "\n## Gadgets (ratio: median over the rounds of the gadget's time / that round's NAND at %s, median %.2f ms)\n\n",
		res.Reference, fhewbench.Median(res.ReferenceMs))
	fmt.Fprintln(w, "| gadget | set | ms median | ratio to NAND | rounds |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|")
	for _, row := range res.Rows {
		per := ""
		if row.OpsPerRound > 1 {
			per = fmt.Sprintf(" (%d per round)", row.OpsPerRound)
		}
		fmt.Fprintf(w, "| %s%s | %s | %.3f | %s | %d |\n", row.Gadget, per, setLabel(row.Set), row.MedianMs, fmtRatio(row.Ratio), len(row.TimesMs))
	}
	fmt.Fprintln(w)
	var wrong []string
	checked := 0
	for _, row := range res.Rows {
		checked += row.Checked
		if row.Wrong > 0 {
			wrong = append(wrong, fmt.Sprintf("%s at %s: %d of %d", row.Gadget, row.Set, row.Wrong, row.Checked))
		}
	}
	if len(wrong) > 0 {
		fmt.Fprintf(w, "Results that decrypted wrongly: %s.\n", strings.Join(wrong, "; "))
	} else {
		fmt.Fprintf(w, "Every result decrypted correctly (%d checked outside the timed regions; the table checks the round's CBS, the CMuxes the round's select).\n", checked)
	}
	fmt.Fprintln(w, "The reference NAND is timed at the start and at the end of each round (its time is the mean of the two), every other row between them; "+
		"the second NAND at the reference set (its own row) shows the method's noise.")
	var one, four float64
	for _, row := range res.Rows {
		switch row.Gadget {
		case fhewbench.GadgetMultiOne:
			one = row.Ratio
		case fhewbench.GadgetMultiOut:
			four = row.Ratio
		}
	}
	if one > 0 && four > 0 {
		fmt.Fprintf(w, "Multi-output bootstrap: (4 outputs − 1 output) / 3 = %s NAND, within this method's noise (compare the two NAND rows at the reference set); "+
			"an output beyond the first costs one extraction, which fhew's BenchmarkMultiLUTCost times alone (~0.005 NAND).\n", fmtRatio((four-one)/3))
	}
}

// setLabel marks insecure sets.
func setLabel(name string) string {
	if strings.HasPrefix(name, "Toy") {
		return name + " (insecure)"
	}
	return name
}

// fmtRatio prints a ratio with three significant digits (small ratios
// such as a CMux's 0.01 keep theirs).
func fmtRatio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "?"
	}
	return fmt.Sprintf("%.3g", x)
}
