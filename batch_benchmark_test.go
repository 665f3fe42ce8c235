package hcc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/internal/testenv"
)

// batchBench is the setup of the FHEW batch benchmarks: 64 instances of
// adder64 (shared/circuits/adder64.txt, or the same 64-bit adder from the
// HDL standard library when shared/ is absent) on STD128_LOWFAIL_T, or the
// set HCC_BENCH_PARAMS names (e.g. ToySigned, insecure, for a quick look).
type batchBench struct {
	p    *Program
	ck   *ClientKey
	sk   *ServerKey
	ins  []Values
	want []Values
}

const batchInstances = 64

func newBatchBench(b *testing.B) *batchBench {
	b.Helper()
	src := HDL(`circuit adder64(in0: u64, in1: u64) -> (out0: u64) { out0 = in0 + in1; }`, "")
	if dir, ok := testenv.FindSharedCircuits(); ok {
		src = File(filepath.Join(dir, "adder64.txt"))
	}
	params := os.Getenv("HCC_BENCH_PARAMS")
	if params == "" {
		params = "STD128_LOWFAIL_T"
	}
	p, err := Compile(src, Target{Engine: "fhew", Params: params, Insecure: strings.HasPrefix(params, "Toy")})
	if err != nil {
		b.Fatal(err)
	}
	ck, sk, err := GenerateKeys(p)
	if err != nil {
		b.Fatal(err)
	}
	bb := &batchBench{p: p, ck: ck, sk: sk, ins: randomInputs(p, batchInstances, 64)}
	for _, v := range bb.ins {
		w, err := p.EvalPlain(v)
		if err != nil {
			b.Fatal(err)
		}
		bb.want = append(bb.want, w)
	}
	return bb
}

// run evaluates the batch once on threads and returns the bootstraps per
// second of the Eval (encryption and decryption excluded) and its
// statistics; every instance must decrypt to the plaintext result.
func (bb *batchBench) run(b *testing.B, threads int) (float64, Stats) {
	b.Helper()
	b.StopTimer()
	cts, err := bb.ck.Encrypt(bb.p, bb.ins...)
	if err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	t0 := time.Now()
	out, st, err := Eval(context.Background(), bb.p, bb.sk, cts, EvalOptions{Threads: threads, ReleaseInputs: true})
	wall := time.Since(t0)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if st.Runs != 1 || st.Instances != batchInstances {
		b.Fatalf("%d runs for %d instances, want one run", st.Runs, st.Instances)
	}
	got, err := bb.ck.Decrypt(bb.p, out)
	if err != nil {
		b.Fatal(err)
	}
	for j := range got {
		if FormatOutputs(bb.p.Circuit(), got[j]) != FormatOutputs(bb.p.Circuit(), bb.want[j]) {
			b.Fatalf("instance %d decrypts wrong", j)
		}
	}
	b.StartTimer()
	return float64(st.Costly) / wall.Seconds(), st
}

// BenchmarkFHEWBatch runs 64 adder64 instances in one Eval at 1 and 2
// threads and reports bootstraps per second.
func BenchmarkFHEWBatch(b *testing.B) {
	bb := newBatchBench(b)
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			var rate, busy, cpu float64
			for i := 0; i < b.N; i++ {
				r, st := bb.run(b, threads)
				rate, busy, cpu = rate+r, busy+st.Efficiency(), cpu+st.CPUShare()
			}
			n := float64(b.N)
			b.ReportMetric(rate/n, "bootstraps/s")
			b.ReportMetric(100*busy/n, "busy%")
			b.ReportMetric(100*cpu/n, "cpu%")
		})
	}
}

// BenchmarkFHEWBatchSpeedup alternates the 1- and 2-thread runs of the same
// batch within each iteration (so that a change in the machine's load hits
// both) and reports the ratio of their bootstraps per second (issue 9's
// target: at least 1.9 on an otherwise idle 2-core machine), with the
// 2-thread run's busy share (both workers had a node to evaluate) and the
// CPU it received (below 100%: the machine was loaded, and the ratio
// measures the load, not the scheduler).
func BenchmarkFHEWBatchSpeedup(b *testing.B) {
	bb := newBatchBench(b)
	var r1, r2, busy, cpu float64
	for i := 0; i < b.N; i++ {
		r, _ := bb.run(b, 1)
		r1 += r
		r, st := bb.run(b, 2)
		r2, busy, cpu = r2+r, busy+st.Efficiency(), cpu+st.CPUShare()
	}
	n := float64(b.N)
	b.ReportMetric(r1/n, "bootstraps/s@1")
	b.ReportMetric(r2/n, "bootstraps/s@2")
	b.ReportMetric(r2/r1, "speedup")
	b.ReportMetric(100*busy/n, "busy%@2")
	b.ReportMetric(100*cpu/n, "cpu%@2")
}
