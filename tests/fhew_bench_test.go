package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hcc-fhe/hcc/internal/testenv"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/runtime"
)

// BenchmarkFHEWThreads measures encrypted throughput (bootstraps per second
// of wall time) of mult64, compiled as hcc eval compiles it, on 1 and 2
// runtime threads. The 2-thread run also reports "speedup", its throughput
// over the 1-thread run's (the target on 2 cores: >= 1.85), and
// "cores", the CPU time the process got per second of wall time: on a
// shared machine a speedup below the target with cores well below 2 means
// the run was starved by other jobs, not by the scheduler. Run it on an
// otherwise idle machine:
//
//	go test ./tests -run '^$' -bench FHEWThreads/ToySigned -benchtime 3x
//	go test ./tests -run '^$' -bench FHEWThreads/STD128_LOWFAIL_T -benchtime 1x
//
// The 128-bit rows take about a minute (about 6000 bootstraps twice).
func BenchmarkFHEWThreads(b *testing.B) {
	c, err := ir.ReadFile(filepath.Join(testenv.SharedCircuits(b), "mult64.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, set := range []string{"ToySigned", "STD128_LOWFAIL_T"} {
		var single float64 // 1-thread throughput, for the speedup
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", set, threads), func(b *testing.B) {
				k := kitFor(b, set)
				d := compileFHEW(b, c, k)
				bits, err := c.PackInputs(randomInputs(c, rand.New(rand.NewPCG(1, 2))))
				if err != nil {
					b.Fatal(err)
				}
				in := k.enc.EncryptBits(bits)
				boots := k.be.LUTTarget().CircuitBootstraps(d)
				var busy, wall float64
				cpu0 := processCPUSeconds()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_, st, err := runtime.Run(context.Background(), d, k.be, in, runtime.Options{Threads: threads})
					if err != nil {
						b.Fatal(err)
					}
					busy += st.Busy.Seconds()
					wall += st.Wall.Seconds()
				}
				b.StopTimer()
				if cpu := processCPUSeconds() - cpu0; cpu > 0 {
					b.ReportMetric(cpu/b.Elapsed().Seconds(), "cores")
				}
				rate := float64(boots*b.N) / b.Elapsed().Seconds()
				b.ReportMetric(rate, "bootstraps/s")
				b.ReportMetric(float64(boots), "bootstraps/op")
				b.ReportMetric(busy/(float64(threads)*wall), "efficiency")
				if threads == 1 {
					single = rate
				} else if single > 0 {
					b.ReportMetric(rate/single, "speedup")
				}
			})
		}
	}
}

// processCPUSeconds is the CPU time the test process has received so far
// (0 where it is unknown: the benchmark then skips its cores metric).
func processCPUSeconds() float64 {
	cpu, ok := runtime.ProcessCPU()
	if !ok {
		return 0
	}
	return cpu.Seconds()
}
