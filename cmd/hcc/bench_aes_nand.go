package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/fhewbench"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// The metric for the fhew row of `hcc bench aes`: the AES wall
// time over the NAND of the default set (STD128_LOWFAIL_T) timed in the
// same run, just before and just after the rows, so that the ratio holds
// under the load of that run; and the CPU the process received meanwhile
// (on a shared machine the rows may get well under --workers cores).

// aesNANDSet is the set whose NAND is the unit of the AES/NAND ratio:
// the default set, or ToySigned for a toy FHEW set (an insecure run is
// compared with the toy NAND, like for like).
func aesNANDSet(fhewSet string) string {
	if strings.HasPrefix(fhewSet, "Toy") {
		return fhew.ToySigned.Name
	}
	return "STD128_LOWFAIL_T"
}

// aesNAND is the reference NAND measured around the rows.
type aesNAND struct {
	set           string
	before, after *fhewbench.GadgetResult
}

// measureAESNAND times rounds reference NANDs (each round two, the
// gadgets bench's bracket) on fresh keys.
func measureAESNAND(set string, rounds int) (*fhewbench.GadgetResult, error) {
	p, err := fhew.ParamsByName(set, true)
	if err != nil {
		return nil, err
	}
	return fhewbench.MeasureGadgets(fhewbench.GadgetOptions{Rounds: rounds, Reference: p})
}

// ms is the median reference NAND over both measurements, in ms.
func (n *aesNAND) ms() float64 {
	return fhewbench.Median(append(append([]float64(nil), n.before.ReferenceMs...), n.after.ReferenceMs...))
}

// aesCPU is the CPU the process received while the rows ran.
type aesCPU struct {
	cpu, wall time.Duration
	known     bool
}

func startAESCPU() func() aesCPU {
	c0, ok0 := hccrt.ProcessCPU()
	t0 := time.Now()
	return func() aesCPU {
		c1, ok1 := hccrt.ProcessCPU()
		return aesCPU{cpu: c1 - c0, wall: time.Since(t0), known: ok0 && ok1}
	}
}

// writeAESRatio appends the AES/NAND line for an fhew row (latency over
// the reference NAND).
func writeAESRatio(w io.Writer, latency time.Duration, set string, workers int, n *aesNAND) {
	nand := n.ms()
	fmt.Fprintf(w, "- AES/NAND (fhew row, %s, %d worker(s)): %v / %.2f ms = **%.0f** NAND-times of %s (median of %d NANDs timed just before and %d just after the rows: %.2f and %.2f ms).\n",
		set, workers, roundAES(latency), nand, float64(latency.Nanoseconds())/1e6/nand, n.set,
		2*n.before.Rounds, 2*n.after.Rounds, fhewbench.Median(n.before.ReferenceMs), fhewbench.Median(n.after.ReferenceMs))
}

// writeAESCPU appends the CPU the process received while the rows ran
// (once: it covers every row).
func writeAESCPU(w io.Writer, c aesCPU) {
	if c.known && c.wall > 0 {
		fmt.Fprintf(w, "- CPU received by the process while the rows ran (compilation, keys, evaluation): %.1f s over %.1f s wall = %.2f cores.\n", c.cpu.Seconds(), c.wall.Seconds(), c.cpu.Seconds()/c.wall.Seconds())
	}
}

// roundAES rounds a latency for printing.
func roundAES(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}
