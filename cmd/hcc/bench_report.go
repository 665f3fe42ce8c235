package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/fhewbench"
)

// benchReport collects one `hcc bench fhew` run and renders it as Markdown
// (standard output and fhew-bench.md) and CSV files.
type benchReport struct {
	command               string
	started               time.Time
	elapsed               time.Duration
	loadBefore, loadAfter string
	threads, runs         int
	table                 []fhewbench.Table3Row
	figure                []fhewbench.Figure2Point
	compare               []fhewbench.Comparison
}

// write prints the Markdown tables to stdout and writes the files to dir.
func (r *benchReport) write(stdout io.Writer, dir string) error {
	var md bytes.Buffer
	r.markdown(&md)
	if _, err := stdout.Write(md.Bytes()); err != nil {
		return err
	}
	files := []outFile{
		{"fhew-table3.csv", func(w io.Writer) error { return fhewbench.WriteTable3CSV(w, r.table) }},
		{"fhew-bench.md", func(w io.Writer) error {
			r.header(w)
			_, err := w.Write(md.Bytes())
			return err
		}},
	}
	if len(r.figure) > 0 {
		files = append(files,
			outFile{"fhew-figure2.csv", func(w io.Writer) error { return fhewbench.WriteFigure2CSV(w, r.figure) }},
			outFile{"fhew-figure2.png", func(w io.Writer) error { return plotFigure2(w, r.figure) }})
	}
	if len(r.compare) > 0 {
		files = append(files, outFile{"fhew-compare.csv", func(w io.Writer) error { return fhewbench.WriteCompareCSV(w, r.compare) }})
	}
	for _, f := range files {
		if err := writeFile(outPath(dir, f.name), f.write); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}

// outFile is one file of the report.
type outFile struct {
	name  string
	write func(io.Writer) error
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// header describes the machine and the load, which matter as much as the
// numbers on a shared machine.
func (r *benchReport) header(w io.Writer) {
	fmt.Fprintf(w, "# hcc bench fhew\n\n")
	fmt.Fprintf(w, "- command: `%s`\n", r.command)
	fmt.Fprintf(w, "- date: %s, took %s\n", r.started.UTC().Format(time.RFC3339), r.elapsed.Round(time.Second))
	fmt.Fprintf(w, "- machine: %s, %d logical CPUs, GOMAXPROCS %d, %s %s/%s\n", cpuModel(), goruntime.NumCPU(),
		goruntime.GOMAXPROCS(0), goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
	fmt.Fprintf(w, "- load average (1/5/15 min): %s before, %s after\n\n", r.loadBefore, r.loadAfter)
}

// cpuModel reads the CPU model name (Linux), or returns "unknown CPU".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func (r *benchReport) markdown(w io.Writer) {
	fmt.Fprintf(w, "## Table 3 (NAND over %d gates, %d thread(s); noise over two-input gate sums, 2 bootstraps each)\n\n", r.runs, r.threads)
	fmt.Fprintln(w, "| set | method | w | NAND mean ms | NAND median ms | BR key MB | eval key MB memory / file | keygen s | gate noise σ measured / model | log2 failure measured [95%] / model | automorphisms measured / loop / theorem |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, t := range r.table {
		w_ := "-"
		autos := "-"
		if t.Method != fhew.MethodGINX {
			w_ = strconv.Itoa(t.Window)
			autos = fmt.Sprintf("%.0f / %.0f / %.0f", t.AutosMeasured, t.AutosAlgorithm, t.AutosTheorem)
		}
		noise, fail := "not measured", fmt.Sprintf("- / %.1f", t.ModelLog2Failure)
		if t.Noise.Samples > 0 {
			noise = fmt.Sprintf("%.4f / %.4f (n=%d)", t.Noise.GateStd, t.ModelGateStd, t.Noise.Samples)
			fail = fmt.Sprintf("%.1f [%.1f, %.1f] / %.1f", t.Noise.Log2Failure, t.Log2FailureLo, t.Log2FailureHi, t.ModelLog2Failure)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %.2f | %.1f | %.1f / %.1f | %.2f | %s | %s | %s |\n",
			t.Set, t.Method, w_, t.NANDMeanMs, t.NANDMedianMs, t.BRKeyMB, t.EvalKeyMB, t.FileMB, t.KeyGenSec, noise, fail, autos)
	}
	fmt.Fprintln(w, "\nNoise σ is a fraction of the circle (the modulus); a gate fails when its noise exceeds 1/(2P) = 0.125 (P = 4) or 0.0625 (P = 8, STD128_LOWFAIL3_T); log2 failure is the Gaussian tail beyond that margin. Automorphisms per bootstrap: measured on fresh random inputs, the exact expectation of the implemented loop (\"loop\") and Theorem 1/2's closed form, which overestimates it.")
	r.wrongMarkdown(w)
	if len(r.figure) > 0 {
		r.figureMarkdown(w)
	}
	for _, c := range r.compare {
		fmt.Fprintf(w, "\nHead-to-head at %s, each at its best w, %d rounds of 5 NANDs interleaved: Signed w=%d median %.2f ms, LMKCDEY w=%d median %.2f ms; Signed/LMKCDEY = %.3f (median of per-round ratios); Signed faster in %d of %d rounds (sign test p = 2^%.1f).\n",
			c.A.Set, c.Rounds, c.A.Window, c.A.NANDMedianMs, c.B.Window, c.B.NANDMedianMs, c.Ratio, c.AFaster, c.Rounds, c.Log2PValue)
		if c.ExternalProductUs > 0 {
			fmt.Fprintf(w, "Why the margin is what it is: one external product costs %.1f µs, one automorphism with key switching %.1f µs (%.2f×); both methods run n external products and differ only in automorphisms (%.0f vs %.0f per bootstrap), so the blind rotations should differ by %.3f×.\n",
				c.ExternalProductUs, c.AutomorphismUs, c.AutomorphismUs/c.ExternalProductUs, c.A.Autos, c.B.Autos, c.PredictedRatio)
		}
	}
}

// figureMarkdown prints Figure 2 as one table per set: NAND median ms and
// automorphisms per bootstrap against w.
func (r *benchReport) figureMarkdown(w io.Writer) {
	var sets []string
	for _, p := range r.figure {
		if len(sets) == 0 || sets[len(sets)-1] != p.Set {
			sets = append(sets, p.Set)
		}
	}
	for _, set := range sets {
		fmt.Fprintf(w, "\n## Figure 2 at %s (NAND median ms over %d gates, the two methods interleaved; automorphisms per bootstrap measured / loop / theorem)\n\n", set, r.runs)
		fmt.Fprintln(w, "| w | LMKCDEY ms | Signed ms | Signed / LMKCDEY | LMKCDEY autos | Signed autos |")
		fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|")
		byW := map[int][2]*fhewbench.Figure2Point{}
		var ws []int
		for i := range r.figure {
			p := &r.figure[i]
			if p.Set != set {
				continue
			}
			e, seen := byW[p.Window]
			if !seen {
				ws = append(ws, p.Window)
			}
			if p.Method == fhew.MethodSigned {
				e[1] = p
			} else {
				e[0] = p
			}
			byW[p.Window] = e
		}
		for _, wi := range ws {
			e := byW[wi]
			if e[0] == nil || e[1] == nil {
				continue
			}
			fmt.Fprintf(w, "| %d | %.2f | %.2f | %.3f | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f |\n", wi, e[0].NANDMedianMs, e[1].NANDMedianMs,
				e[1].NANDMedianMs/e[0].NANDMedianMs, e[0].Autos, e[0].AutosAlgorithm, e[0].AutosTheorem, e[1].Autos, e[1].AutosAlgorithm, e[1].AutosTheorem)
		}
	}
}

// wrongMarkdown lists timed gates that decrypted wrongly: on a
// high-failure set (STD128_LMKCDEY_G, about 2^-15 per gate) a long run may
// meet one, which is a result, not a reason to stop measuring.
func (r *benchReport) wrongMarkdown(w io.Writer) {
	var notes []string
	for _, t := range r.table {
		if t.WrongNAND > 0 {
			notes = append(notes, fmt.Sprintf("%s %s: %d of %d", t.Set, t.Method, t.WrongNAND, r.runs))
		}
	}
	for _, p := range r.figure {
		if p.WrongNAND > 0 {
			notes = append(notes, fmt.Sprintf("Figure 2 %s %s w=%d: %d of %d", p.Set, p.Method, p.Window, p.WrongNAND, r.runs))
		}
	}
	for _, c := range r.compare {
		for _, p := range []fhewbench.Figure2Point{c.A, c.B} {
			if p.WrongNAND > 0 {
				notes = append(notes, fmt.Sprintf("head-to-head %s %s w=%d: %d of %d", p.Set, p.Method, p.Window, p.WrongNAND, c.Rounds*5))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nTimed NAND gates that decrypted wrongly: %s.\n", strings.Join(notes, "; "))
	} else {
		fmt.Fprintf(w, "\nEvery timed NAND gate decrypted correctly.\n")
	}
}
