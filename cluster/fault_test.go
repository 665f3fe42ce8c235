package cluster

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as a worker process: the fault tests start this test
// binary with HCC_CLUSTER_TEST_WORKER=URL and kill it with SIGKILL.
func TestMain(m *testing.M) {
	if url := os.Getenv("HCC_CLUSTER_TEST_WORKER"); url != "" {
		os.Exit(toyWorkerMain(url))
	}
	os.Exit(m.Run())
}

func toyWorkerMain(url string) int {
	ctx := context.Background()
	c, err := Connect(ctx, ConnectConfig{URL: url, Name: "toy-worker"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var e Engine = toyEngine{}
	if os.Getenv("HCC_CLUSTER_TEST_ENGINE") == "hcc" {
		e = HCC
	}
	w, err := NewWorker(c, WorkerConfig{Engine: e, Threads: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	w.Run(ctx)
	return 0
}

// startToyWorkerProcess starts a worker process and returns it with a
// channel that gets a value each time it starts evaluating a task.
func startToyWorkerProcess(t testing.TB, url string, env ...string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "HCC_CLUSTER_TEST_WORKER="+url, "HCC_TOY_ANNOUNCE=1"), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	started := make(chan struct{}, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "eval start" {
				started <- struct{}{}
			}
		}
	}()
	return cmd, started
}

func TestWorkerKilledMidTask(t *testing.T) {
	s := startTestServer(t, "", "", Tuning{AckWait: time.Second, MaxDeliver: 5})
	defer s.Shutdown()
	victim, started := startToyWorkerProcess(t, s.URL())
	c := testConnect(t, s.URL())
	j := newToyJob(4, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type outcome struct {
		out []byte
		st  SubmitStats
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		out, st, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}, PerTask: 2})
		done <- outcome{out, st, err}
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the worker never started a task")
	}
	time.Sleep(200 * time.Millisecond) // mid-task: it takes 2 s
	if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.Wait()
	startToyWorkerProcess(t, s.URL())
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if err := j.check(r.out); err != nil {
		t.Fatal(err)
	}
	// The killed worker's task was redelivered: some result says delivery 2+.
	redelivered := false
	for i := range r.st.Tasks {
		ent, err := c.results.Get(ctx, resultKey(r.st.JobID, i))
		if err == nil && strings.Contains(string(ent.Value()), `"delivery":2`) {
			redelivered = true
		}
	}
	if !redelivered {
		t.Error("no task shows a second delivery")
	}
}

// freePort returns a loopback address nobody listens on (for a server that
// must come back on the same port).
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func TestServerRestartResumesJob(t *testing.T) {
	dir, addr := t.TempDir(), freePort(t)
	s := startTestServer(t, addr, dir, Tuning{AckWait: 2 * time.Second})
	url := s.URL()
	startWorkers(t, url, 2, WorkerConfig{Engine: toyEngine{}})
	c := testConnect(t, url)
	j := newToyJob(8, 150*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	progress := make(chan int, 100)
	type outcome struct {
		out []byte
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		out, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{},
			Progress: func(d, _ int) { progress <- d }})
		done <- outcome{out, err}
	}()
	for d := range progress {
		if d >= 2 {
			break
		}
	}
	s.Shutdown() // mid-job: tasks queued, some in flight
	time.Sleep(300 * time.Millisecond)
	s2, err := StartServer(ServerConfig{Listen: addr, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Shutdown()
	var r outcome
	select {
	case r = <-done:
	case <-ctx.Done():
		t.Fatal("the job did not finish after the restart")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if err := j.check(r.out); err != nil {
		t.Fatal(err)
	}
}
