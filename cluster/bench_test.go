package cluster

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/internal/testenv"
)

// BenchmarkScale compares the cluster with the in-process runtime on one
// batch: adder64 instances on FHEW at the default 128-bit set (64 unless
// HCC_CLUSTER_BENCH_FHEW=N) and BGV slot packs (4 packs at the set chosen
// for the batch unless HCC_CLUSTER_BENCH_BGV_PACKS=N), each run in
// process on 1 and 2 threads and on 1 and 2 single-threaded worker
// processes, interleaved. It reports instances/s per run and, at the end,
// the throughput ratios, the overhead per task, bytes per task and the key
// distribution time. It takes minutes: run it alone,
//
//	go test ./cluster/ -run '^$' -bench Scale -benchtime 1x -timeout 60m
func BenchmarkScale(b *testing.B) {
	dir := testenv.SharedCircuits(b)
	src := filepath.Join(dir, "adder64.txt")
	b.Run("FHEW", func(b *testing.B) {
		n := envInt("HCC_CLUSTER_BENCH_FHEW", 64)
		benchScale(b, src, hcc.Target{Engine: "fhew"}, n, 1)
	})
	b.Run("BGV", func(b *testing.B) {
		packs := envInt("HCC_CLUSTER_BENCH_BGV_PACKS", 4)
		p, err := hcc.CompileFile(src, hcc.Target{Engine: "bgv"})
		if err != nil {
			b.Fatal(err)
		}
		benchScale(b, src, hcc.Target{Engine: "bgv", Params: p.Target().Params}, packs*p.Slots(), p.Slots())
	})
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// benchBatch is one encrypted batch with its files.
type benchBatch struct {
	p             *hcc.Program
	sk            *hcc.ServerKey
	key, prog, in []byte
}

func newBenchBatch(b *testing.B, src string, tg hcc.Target, n int) benchBatch {
	tg.Instances = n
	p, err := hcc.CompileFile(src, tg)
	if err != nil {
		b.Fatal(err)
	}
	ck, sk, err := hcc.GenerateKeys(p)
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]hcc.Values, n)
	for i := range batch {
		batch[i] = hcc.Values{}
		for j, bus := range p.Inputs() {
			v := new(big.Int).SetUint64(uint64(i*(j+3)+1) * 0x9e3779b97f4a7c15)
			v.Rsh(v, uint(64-min(bus.Width, 64)))
			batch[i][bus.Name] = []*big.Int{v}
		}
	}
	cts, err := ck.Encrypt(p, batch...)
	if err != nil {
		b.Fatal(err)
	}
	bb := benchBatch{p: p, sk: sk}
	if bb.key, err = sk.MarshalBinary(); err != nil {
		b.Fatal(err)
	}
	if bb.prog, err = p.MarshalBinary(); err != nil {
		b.Fatal(err)
	}
	if bb.in, err = cts.MarshalBinary(); err != nil {
		b.Fatal(err)
	}
	return bb
}

func benchScale(b *testing.B, src string, tg hcc.Target, n, perTask int) {
	bb := newBenchBatch(b, src, tg, n)
	b.Logf("%s %s: %d instances, %d per task; key %.1f MB, input %.2f MB; %s",
		tg.Engine, bb.p.Target().Params, n, perTask, float64(len(bb.key))/1e6, float64(len(bb.in))/1e6, loadAvg())

	s := startTestServer(b, "", "", Tuning{AckWait: 30 * time.Second})
	defer s.Shutdown()
	c := testConnect(b, s.URL())
	keyTime := benchKeyDistribution(b, c, bb)

	// Worker processes: started once, warmed up (each fetches and parses
	// the key on its first task), then used for every timed run.
	var workers []*exec.Cmd
	startWorkers := func(k int) {
		for len(workers) < k {
			cmd, _ := startToyWorkerProcess(b, s.URL(), "HCC_CLUSTER_TEST_ENGINE=hcc", "GOMAXPROCS=2")
			workers = append(workers, cmd)
		}
		warm, err := hcc.UnmarshalCiphertexts(bb.in)
		if err != nil {
			b.Fatal(err)
		}
		parts, _ := warm.Split(perTask)
		one, _ := hcc.JoinCiphertexts(parts[:min(k, len(parts))])
		in, _ := one.MarshalBinary()
		if _, _, err := c.Submit(context.Background(), bb.key, bb.prog, in, SubmitOptions{Engine: HCC, PerTask: perTask, JobID: fmt.Sprintf("warm%d", k)}); err != nil {
			b.Fatal(err)
		}
	}

	rate := map[string]float64{}
	cpuPer := map[string]float64{} // CPU seconds per instance: load-independent
	var overhead, bytesPerTask float64
	for range b.N {
		for _, threads := range []int{1, 2} {
			name := fmt.Sprintf("inprocess-%dthreads", threads)
			cpu0 := selfCPU()
			wall := benchInProcess(b, bb, threads)
			cpu := selfCPU() - cpu0
			rate[name] = float64(n) / wall.Seconds()
			cpuPer[name] = cpu.Seconds() / float64(n)
			b.Logf("%-20s %8.2f s  %7.3f instances/s  CPU %.1f ms/instance (%.0f%% of %d cores)  %s", name, wall.Seconds(), rate[name],
				cpu.Seconds()*1e3/float64(n), 100*cpu.Seconds()/(wall.Seconds()*float64(threads)), threads, loadAvg())

			startWorkers(threads)
			name = fmt.Sprintf("cluster-%dworkers", threads)
			cpu0 = selfCPU() + workersCPU(workers[:threads])
			out, st, err := c.Submit(context.Background(), bb.key, bb.prog, bb.in, SubmitOptions{Engine: HCC, PerTask: perTask, JobID: fmt.Sprintf("bench%d", threads)})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := hcc.UnmarshalCiphertexts(out); err != nil {
				b.Fatal(err)
			}
			cpu = selfCPU() + workersCPU(workers[:threads]) - cpu0
			c.DeleteJob(context.Background(), st.JobID)
			rate[name] = float64(n) / st.Wall.Seconds()
			cpuPer[name] = cpu.Seconds() / float64(n)
			b.Logf("%-20s CPU %.1f ms/instance (workers + server + submitter, %.0f%% of %d cores)", name,
				cpu.Seconds()*1e3/float64(n), 100*cpu.Seconds()/(st.Wall.Seconds()*float64(threads)), threads)
			// Worker time not spent in Eval: transport, (de)serialisation,
			// waiting for the next task, the tail of the last task.
			over := (float64(threads)*st.Wall.Seconds() - st.EvalSeconds) / float64(st.Tasks)
			if threads == 1 {
				overhead = over
			}
			bytesPerTask = float64(st.BytesUp+st.BytesDown) / float64(st.Tasks)
			b.Logf("%-20s %8.2f s  %7.3f instances/s  %d tasks, eval %.0f ms/task, overhead %.0f ms/task (input fetch %.0f ms), %.2f MB/task; submit %v, assemble %v  %s",
				name, st.Wall.Seconds(), rate[name], st.Tasks, st.EvalSeconds/float64(st.Tasks)*1e3, over*1e3,
				st.FetchSeconds/float64(st.Tasks)*1e3, bytesPerTask/1e6, st.Submit.Round(time.Millisecond), st.Assemble.Round(time.Millisecond), loadAvg())
		}
	}
	for _, w := range workers {
		w.Process.Kill()
		w.Wait()
	}
	b.ReportMetric(rate["cluster-2workers"]/rate["cluster-1workers"], "x_2w/1w")
	b.ReportMetric(rate["cluster-2workers"]/rate["inprocess-2threads"], "x_2w/inproc2")
	b.ReportMetric(overhead*1e3, "ms_overhead/task")
	b.ReportMetric(bytesPerTask, "B/task")
	b.ReportMetric(keyTime.Seconds()*1e3, "ms_keydist")
	b.ReportMetric(cpuPer["cluster-2workers"]/cpuPer["inprocess-2threads"], "x_cpu_2w/inproc2")
	b.Logf("CPU per instance, cluster / in process: 1 worker / 1 thread %.3fx, 2 workers / 2 threads %.3fx",
		cpuPer["cluster-1workers"]/cpuPer["inprocess-1threads"], cpuPer["cluster-2workers"]/cpuPer["inprocess-2threads"])
	b.Logf("ratios: 2 workers / 1 worker = %.2fx, 2 workers / in-process 2 threads = %.2fx, in-process 2/1 threads = %.2fx",
		rate["cluster-2workers"]/rate["cluster-1workers"], rate["cluster-2workers"]/rate["inprocess-2threads"],
		rate["inprocess-2threads"]/rate["inprocess-1threads"])
}

// benchInProcess times hcc.Eval on the whole batch.
func benchInProcess(b *testing.B, bb benchBatch, threads int) time.Duration {
	in, err := hcc.UnmarshalCiphertexts(bb.in)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, _, err := hcc.Eval(context.Background(), bb.p, bb.sk, in, hcc.EvalOptions{Threads: threads}); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// benchKeyDistribution times what a new worker pays once: storing the key
// (submitter), fetching it (worker) and parsing it.
func benchKeyDistribution(b *testing.B, c *Client, bb benchBatch) time.Duration {
	ctx := context.Background()
	k, _ := HCC.ParseKey(bb.key)
	t0 := time.Now()
	if _, err := c.putObject(ctx, keyObject(k.ID()), bb.key); err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	data, err := c.getObject(ctx, keyObject(k.ID()), "")
	if err != nil {
		b.Fatal(err)
	}
	t2 := time.Now()
	if _, err := HCC.ParseKey(data); err != nil {
		b.Fatal(err)
	}
	t3 := time.Now()
	b.Logf("key distribution (%.1f MB, loopback): store %v, fetch %v, parse %v", float64(len(data))/1e6,
		t1.Sub(t0).Round(time.Millisecond), t2.Sub(t1).Round(time.Millisecond), t3.Sub(t2).Round(time.Millisecond))
	return t3.Sub(t0)
}

// selfCPU is this process's CPU time (user + system, all threads).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// workersCPU sums the CPU time of the worker processes (/proc/PID/stat
// utime + stime, in clock ticks of 10 ms).
func workersCPU(ws []*exec.Cmd) time.Duration {
	var sum time.Duration
	for _, w := range ws {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", w.Process.Pid))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command name; utime and stime are
		// fields 14 and 15 of the whole line.
		rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
		f := strings.Fields(rest)
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		sum += time.Duration(u+st) * 10 * time.Millisecond
	}
	return sum
}

// loadAvg is the 1-minute load average (other agents share the machine).
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(data) < 4 {
		return ""
	}
	var one float64
	fmt.Sscanf(string(data), "%f", &one)
	return fmt.Sprintf("(load %.2f)", one)
}

// BenchmarkTaskOverhead measures the transport floor: tasks whose evaluation
// costs nothing (the toy engine), through one in-process worker and the
// embedded server, so ns/op is the cost of one task end to end (input object
// stored and fetched, message, result, output stored and fetched, ack).
//
//	go test ./cluster/ -run '^$' -bench TaskOverhead -benchtime 200x
func BenchmarkTaskOverhead(b *testing.B) {
	s := startTestServer(b, "", "", Tuning{})
	defer s.Shutdown()
	startWorkers(b, s.URL(), 1, WorkerConfig{Engine: toyEngine{}})
	c := testConnect(b, s.URL())
	j := newToyJob(b.N, 0)
	ctx := context.Background()
	// Key and program once, outside the timing.
	if _, _, err := c.Submit(ctx, j.key, j.prog, newToyJob(1, 0).in, SubmitOptions{Engine: toyEngine{}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	out, st, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
	b.StopTimer()
	if err != nil || j.check(out) != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.BytesUp+st.BytesDown)/float64(st.Tasks), "B/task")
	b.Logf("%d tasks in %v %s", st.Tasks, st.Wall.Round(time.Millisecond), loadAvg())
}
