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
	fs.BoolVar(&w.forceMemory, "force", false, "run even when the estimated peak memory exceeds the memory available")
}

// checkMemory prints the program's memory estimate (every engine's) on stderr and
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
	if est.Advice != "" {
		what = est.Advice
	}
	return fmt.Errorf("the run needs about %s (%.1f times the estimate %s), more than the %s available: %s; or pass --force to run anyway",
		bgv.FormatBytes(need), memoryMargin, bgv.FormatBytes(est.Total), bgv.FormatBytes(avail), what)
}

// packsOf is the number of ciphertext packs n instances take on p.
func packsOf(p *hcc.Program, n int) int {
	s := max(p.Slots(), 1)
	return max((n+s-1)/s, 1)
}

// byteSize is a flag holding a size in bytes: a number with an optional
// unit, B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB (all binary: memory
// sizes are quoted so).
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	}
	shift := map[string]uint{"": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20,
		"G": 30, "GB": 30, "GIB": 30, "T": 40, "TB": 40, "TIB": 40}
	sh, ok := shift[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || v <= 0 || v*float64(int64(1)<<sh) > 1<<62 {
		return fmt.Errorf("bad size %q (want e.g. 4GiB, 512MiB or a number of bytes, above 0)", s)
	}
	*b = byteSize(v * float64(int64(1)<<sh))
	return nil
}

// source is the command's circuit argument as an hcc.Source.
func (e *cmdEnv) source(path string) hcc.Source {
	return hcc.Source{Name: path, Circuit: e.circuit, MemoryBudget: int64(e.maxMemory)}
}
