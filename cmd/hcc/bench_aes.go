package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	goruntime "runtime"
	"slices"
	"strings"

	"github.com/hcc-fhe/hcc/backend/fhew/fhewbench"
	"github.com/hcc-fhe/hcc/bench/aesbench"
)

// benchAESOptions are the flags of `hcc bench aes`; the measuring is
// package aesbench's.
type benchAESOptions struct {
	rows, ring, fhewSet string
	blocks, workers     int
	out                 string
	nandRounds          int // bench_aes_nand.go
	// inputRGSW is --input-rgsw: the fhew row runs again with client-side
	// input RGSWs (aesbench.Options.InputRGSW).
	inputRGSW bool
}

// flags registers bench aes's flags on bench's flag set (bench fhew
// ignores them).
func (a *benchAESOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&a.rows, "rows", strings.Join(aesbench.DefaultRows, ","),
		"aes: comma-separated `designs`: byte (byte-sliced BGV, bgvaes), bit (bit-sliced BGV, aes128_lowdepth.hdl), fhew (aes128.hdl, one block), ctr (hcc.Transcipher end to end on BGV)")
	fs.StringVar(&a.ring, "ring", aesbench.DefaultRing,
		"aes: BGV parameter `set` of the byte and bit rows; the default is the insecure toy ring (seconds). "+
			"M65537 is the 128-bit set: byte-sliced 2048 blocks in minutes; the bit-sliced row there takes ~7 min and ~12.7 GB")
	fs.StringVar(&a.fhewSet, "fhew-params", aesbench.DefaultFHEWParams,
		"aes: FHEW parameter `set` of the fhew row (default the insecure toy set; STD128_LOWFAIL_T is 128-bit, ~20000 bootstraps, minutes; STD128_CBS: wide tables, 1600 circuit bootstraps, ~30-40 s on 2 threads)")
	fs.IntVar(&a.blocks, "blocks", 0, "aes: at most `N` blocks per BGV evaluation (0: every slot)")
	fs.IntVar(&a.workers, "workers", goruntime.GOMAXPROCS(0), "aes: worker goroutines (`N`)")
	fs.StringVar(&a.out, "aes-out", "", "aes: also write the Markdown table to `FILE`")
	fs.BoolVar(&a.inputRGSW, "input-rgsw", false, "aes: run the fhew row twice, without and then with client-side input RGSWs (wide-table sets STD128_CBS, STD128_CBS_595, ToyCBS only; "+
		"AES-128 then runs 1440 circuit bootstraps instead of 1600, for inputs about 7x larger), and compare the two rows of the same run")
	fs.IntVar(&a.nandRounds, "nand-rounds", 10, "aes: with the fhew row, time 2×`N` NANDs of STD128_LOWFAIL_T (ToySigned for a toy set) just before and after the rows and report AES/NAND (0: skip)")
}

// runBenchAES measures the rows and prints the table on stdout, progress on
// stderr.
func runBenchAES(e *cmdEnv, a *benchAESOptions) error {
	if a.workers < 1 {
		return fmt.Errorf("--workers must be at least 1, got %d", a.workers)
	}
	if a.blocks < 0 {
		return fmt.Errorf("--blocks must be at least 0, got %d", a.blocks)
	}
	rows := splitList(a.rows)
	if len(rows) == 0 {
		return fmt.Errorf("--rows names no design")
	}
	if a.ring == "M65537" && strings.Contains(","+a.rows+",", ",bit,") {
		fmt.Fprintf(e.stderr, "note: the bit-sliced row at M65537 takes about 7 minutes and 12.7 GB of memory\n")
	}
	if a.out != "" {
		if err := checkWritableFile(a.out); err != nil {
			return err
		}
	}
	if a.nandRounds < 0 {
		return fmt.Errorf("--nand-rounds must be at least 0, got %d", a.nandRounds)
	}
	opts := aesbench.Options{Rows: rows, Ring: a.ring, FHEWParams: a.fhewSet, Blocks: a.blocks, Threads: a.workers, InputRGSW: a.inputRGSW}
	// Before the reference NAND is timed: a bad --input-rgsw costs nothing.
	if err := aesbench.CheckInputRGSW(opts); err != nil {
		return fmt.Errorf("--input-rgsw: %w", err)
	}
	logf := func(f string, args ...any) { fmt.Fprintf(e.stderr, f+"\n", args...) }
	opts.Log = logf
	var nand *aesNAND
	if a.nandRounds > 0 && slices.Contains(rows, aesbench.FHEW) {
		fhewSet := a.fhewSet
		if fhewSet == "" {
			fhewSet = aesbench.DefaultFHEWParams
		}
		nand = &aesNAND{set: aesNANDSet(fhewSet)}
		var err error
		if nand.before, err = measureAESNAND(nand.set, a.nandRounds); err != nil {
			return fmt.Errorf("reference NAND: %w", err)
		}
		logf("reference NAND (%s): %.2f ms before the rows", nand.set, fhewbench.Median(nand.before.ReferenceMs))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cpuDone := startAESCPU()
	res, err := aesbench.Run(ctx, opts)
	cpu := cpuDone()
	if err != nil {
		return err
	}
	if nand != nil {
		if nand.after, err = measureAESNAND(nand.set, a.nandRounds); err != nil {
			return fmt.Errorf("reference NAND: %w", err)
		}
		logf("reference NAND (%s): %.2f ms after the rows", nand.set, fhewbench.Median(nand.after.ReferenceMs))
	}
	var b strings.Builder
	if err := aesbench.WriteMarkdown(&b, res, a.workers, loadAverage()); err != nil {
		return err
	}
	for _, r := range res {
		if r.Design == aesbench.FHEW && nand != nil {
			set := r.Params
			if r.InputRGSW {
				set += " with input RGSWs"
			}
			writeAESRatio(&b, r.Latency, set, a.workers, nand)
		}
	}
	if nand != nil {
		writeAESCPU(&b, cpu)
	}
	writeAESInputRGSW(&b, res)
	if _, err := fmt.Fprint(e.stdout, b.String()); err != nil {
		return err
	}
	if a.out != "" {
		return os.WriteFile(a.out, []byte(b.String()), 0o644)
	}
	return nil
}

// writeAESInputRGSW appends the comparison of the fhew rows without and
// with input RGSWs (--input-rgsw), measured one after the other in this
// run: the bootstraps they ran, their latencies and uploads.
func writeAESInputRGSW(w io.Writer, rows []aesbench.Row) {
	var plain, with *aesbench.Row
	for i := range rows {
		if r := &rows[i]; r.Design == aesbench.FHEW {
			if r.InputRGSW {
				with = r
			} else {
				plain = r
			}
		}
	}
	if plain == nil || with == nil || plain.Latency <= 0 {
		return
	}
	cpu := ""
	if plain.EvalCPU > 0 && with.EvalCPU > 0 {
		// Under load the latencies follow what the process received; its
		// CPU follows the work.
		cpu = fmt.Sprintf(", the evaluation's CPU %.1f s -> %.1f s = **%.2fx**", plain.EvalCPU.Seconds(), with.EvalCPU.Seconds(), with.EvalCPU.Seconds()/plain.EvalCPU.Seconds())
	}
	fmt.Fprintf(w, "- input RGSWs (the two fhew rows, %s, one after the other in this run): %d -> %d %s, latency %v -> %v = %.2fx%s, upload per block %s -> %s "+
		"(latencies are the evaluations alone; the second row's compilation reuses the first's table mapping, so its peak RSS leaves the mapping out).\n",
		plain.Params, plain.Costly, with.Costly, plain.CostName, roundAES(plain.Latency), roundAES(with.Latency),
		with.Latency.Seconds()/plain.Latency.Seconds(), cpu, aesbench.FormatBytes(plain.UploadFHE), aesbench.FormatBytes(with.UploadFHE))
}

// checkWritableFile fails early if path cannot be created.
func checkWritableFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}
