package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/backend/bgv"
)

// memoryMargin is how much more than hcc.MemoryEstimate.Total a whole
// process was measured to hold (1.26-1.5 times): a run is refused when
// this many times the estimate exceeds the memory available.
const memoryMargin = 1.5

// memAvailable returns MemAvailable of /proc/meminfo in bytes, or ok false
// when it is unknown (not Linux, no /proc): then nothing is refused. Tests
// replace it.
var memAvailable = func() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb <= 0 {
				return 0, false
			}
			return kb * 1024, true
		}
	}
	return 0, false
}

// forceMemoryFlag registers --force on run, eval and encrypt.
func forceMemoryFlag(fs *flag.FlagSet, w *workflowFlags) {
	fs.BoolVar(&w.forceMemory, "force", false, "bgv: run even when the estimated peak memory exceeds the memory available")
}

// checkMemory prints the program's memory estimate (BGV) on stderr and
// refuses the run, before any key is made, when memoryMargin times it
// exceeds the available memory, unless --force.
func checkMemory(e *cmdEnv, w *workflowFlags, p *hcc.Program, o hcc.MemoryOptions) error {
	est, ok, err := p.EstimateMemory(o)
	if err != nil || !ok {
		return err
	}
	fmt.Fprintf(e.stderr, "memory: %s estimated at the peak\n", est.Text)
	avail, known := memAvailable()
	need := int64(float64(est.Total) * memoryMargin)
	if !known || need <= avail {
		return nil
	}
	if w.forceMemory {
		fmt.Fprintf(e.stderr, "warning: %.1f times the estimate, %s, exceeds the %s available; running anyway (--force)\n",
			memoryMargin, bgv.FormatBytes(need), bgv.FormatBytes(avail))
		return nil
	}
	what := "use fewer --threads, a smaller parameter set (e.g. --params M8191, if the circuit's depth fits), or a smaller batch"
	if o.EncryptOnly {
		what = "encrypt a smaller batch (split the --batch file)"
	}
	return fmt.Errorf("the run needs about %s (%.1f times the estimate %s), more than the %s available: %s; or pass --force to run anyway",
		bgv.FormatBytes(need), memoryMargin, bgv.FormatBytes(est.Total), bgv.FormatBytes(avail), what)
}

// packsOf is the number of ciphertext packs n instances take on p.
func packsOf(p *hcc.Program, n int) int {
	s := max(p.Slots(), 1)
	return max((n+s-1)/s, 1)
}
