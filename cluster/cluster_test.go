package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// startTestServer starts an embedded server on a free loopback port with
// the given tuning; the store is in memory unless dir is set.
func startTestServer(t testing.TB, listen, dir string, tune Tuning) *Server {
	t.Helper()
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	s, err := StartServer(ServerConfig{Listen: listen, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	storage := MemoryStorage
	if dir != "" {
		storage = FileStorage
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := Setup(ctx, ConnectConfig{URL: s.URL(), Storage: storage, Tuning: tune}); err != nil {
		s.Shutdown()
		t.Fatal(err)
	}
	return s
}

func testConnect(t testing.TB, url string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, ConnectConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// startWorkers runs n in-process workers until the test ends.
func startWorkers(t testing.TB, url string, n int, cfg WorkerConfig) []*Worker {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var ws []*Worker
	for range n {
		w, err := NewWorker(testConnect(t, url), cfg)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return ws
}

func TestSubmitAssemblesInOrder(t *testing.T) {
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	ws := startWorkers(t, s.URL(), 2, WorkerConfig{Engine: toyEngine{}, CacheDir: t.TempDir()})
	c := testConnect(t, s.URL())
	j := newToyJob(11, 0)
	var last, calls int
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, st, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}, PerTask: 3,
		Progress: func(done, total int) {
			if done < last || total != 4 {
				t.Errorf("progress %d/%d after %d", done, total, last)
			}
			last, calls = done, calls+1
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.check(out); err != nil {
		t.Fatal(err)
	}
	if st.Tasks != 4 || st.Instances != 11 || !st.KeyUploaded || st.Resumed || last != 4 {
		t.Errorf("stats %+v, last progress %d", st, last)
	}
	var fetched int64
	for _, w := range ws {
		fetched += w.Stats().KeyBytes
	}
	if fetched == 0 || fetched > 2*int64(len(j.key)+len(j.prog)) {
		t.Errorf("workers fetched %d bytes of keys and programs, want each once per worker", fetched)
	}
	// The same work again is the same job, already done: Submit resumes it.
	out2, st2, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}, PerTask: 3})
	if err != nil || !st2.Resumed || st2.KeyUploaded || j.check(out2) != nil {
		t.Fatalf("second submit: resumed=%v uploaded=%v err=%v", st2.Resumed, st2.KeyUploaded, err)
	}
	if err := c.DeleteJob(ctx, st.JobID); err != nil {
		t.Fatal(err)
	}
	// Only the key and the program stay, for the next job.
	if infos, _ := c.objects.List(ctx); len(infos) != 2 {
		var names []string
		for _, info := range infos {
			names = append(names, info.Name)
		}
		t.Errorf("objects left after DeleteJob: %q", names)
	}
	if _, _, err := c.Resume(ctx, st.JobID, toyEngine{}, nil); err == nil || !strings.Contains(err.Error(), "not on the server") {
		t.Fatalf("resume of a deleted job: %v", err)
	}
}

func TestResumeAfterSubmitterLeaves(t *testing.T) {
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	c := testConnect(t, s.URL())
	j := newToyJob(4, 0)
	// No workers yet: the submitter gives up waiting, the job stays queued.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, st, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
	cancel()
	if err == nil || !strings.Contains(err.Error(), "resume job") {
		t.Fatalf("want a timeout naming the job, got %v", err)
	}
	startWorkers(t, s.URL(), 1, WorkerConfig{Engine: toyEngine{}})
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c2 := testConnect(t, s.URL())
	out, st2, err := c2.Resume(ctx, st.JobID, toyEngine{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.check(out); err != nil || st2.Tasks != 4 {
		t.Fatalf("resumed output: %v (tasks %d)", err, st2.Tasks)
	}
}

func TestDuplicateResultIgnored(t *testing.T) {
	// AckWait shorter than a task and no progress signals: every task is
	// redelivered to the other worker while the first still works on it.
	s := startTestServer(t, "", "", Tuning{AckWait: 300 * time.Millisecond, MaxDeliver: 5})
	defer s.Shutdown()
	ws := startWorkers(t, s.URL(), 2, WorkerConfig{Engine: toyEngine{}, progressEvery: -1})
	c := testConnect(t, s.URL())
	j := newToyJob(3, 500*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.check(out); err != nil {
		t.Fatal(err)
	}
	// Let the slow copies finish and find their task taken.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var dups int64
		for _, w := range ws {
			dups += w.Stats().Duplicates
		}
		if dups > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no duplicate result was seen")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestProgressKeepsLongTask(t *testing.T) {
	// An AckWait shorter than the task, but with in-progress signals: no redelivery.
	s := startTestServer(t, "", "", Tuning{AckWait: time.Second})
	defer s.Shutdown()
	ws := startWorkers(t, s.URL(), 2, WorkerConfig{Engine: toyEngine{}})
	c := testConnect(t, s.URL())
	j := newToyJob(2, 2500*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
	if err != nil || j.check(out) != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	for _, w := range ws {
		if d := w.Stats().Duplicates; d != 0 {
			t.Errorf("worker saw %d duplicates: a task in progress was redelivered", d)
		}
	}
}

func TestPermanentErrorFailsJob(t *testing.T) {
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	c := testConnect(t, s.URL())
	j := newToyJob(4, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// Refused before anything is stored.
	for _, tc := range []struct {
		name    string
		key, in []byte
		want    string
	}{
		{"secret key", toySecretFile(), j.in, "secret key"},
		{"other key", toyKeyFile(7), j.in, "input ciphertexts are for key"},
		{"damaged input", j.key, append(append([]byte{}, j.in[:len(j.in)-1]...), j.in[len(j.in)-1]^1), "checksum"},
	} {
		_, _, err := c.Submit(ctx, tc.key, j.prog, tc.in, SubmitOptions{Engine: toyEngine{}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}

	// A task input damaged in the store after submission: the worker's
	// digest check fails it once, for good, and the job says why.
	ctxShort, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	_, st, _ := c.Submit(ctxShort, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
	cancelShort()
	if _, err := c.objects.PutBytes(ctx, inputObject(st.JobID, 2), []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	ws := startWorkers(t, s.URL(), 1, WorkerConfig{Engine: toyEngine{}})
	_, _, err := c.Resume(ctx, st.JobID, toyEngine{}, nil)
	if err == nil || !strings.Contains(err.Error(), "task 2 of 4 failed") || !strings.Contains(err.Error(), "SHA-256 differs") {
		t.Fatalf("got %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	if f := ws[0].Stats().Failed; f != 1 {
		t.Errorf("worker failed %d tasks, want 1 (no retry of a permanent error)", f)
	}
}

func TestMaxDeliverFailsJob(t *testing.T) {
	s := startTestServer(t, "", "", Tuning{MaxDeliver: 2})
	defer s.Shutdown()
	startWorkers(t, s.URL(), 1, WorkerConfig{Engine: toyEngine{failValue: 1}})
	c := testConnect(t, s.URL())
	j := newToyJob(2, 0) // instance 0 has value 1
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
	if err == nil || !strings.Contains(err.Error(), "task 0 of 2 failed") || !strings.Contains(err.Error(), "toy transient failure") {
		t.Fatalf("got %v", err)
	}
}

func TestServerRefusesOpenListenWithoutAuth(t *testing.T) {
	_, err := StartServer(ServerConfig{Listen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "without authentication") {
		t.Fatalf("got %v", err)
	}
	// With a token it starts (bound to loopback here: tests stay on this host).
	s, err := StartServer(ServerConfig{Listen: "127.0.0.1:0", Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := nats.Connect(s.URL(), nats.MaxReconnects(0)); err == nil {
		t.Error("connected without the token")
	}
	c, err := Connect(ctx, ConnectConfig{URL: s.URL(), Token: "s3cret", Storage: MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestExhaustedDeliveriesFailJob(t *testing.T) {
	// Every delivery outlives the ack wait without a progress signal (as if
	// each worker hung or died): JetStream gives up after MaxDeliver, and its
	// advisory fails the job instead of leaving it waiting. JetStream notices
	// when it would deliver again, so a third worker must be asking.
	s := startTestServer(t, "", "", Tuning{AckWait: 300 * time.Millisecond, MaxDeliver: 2})
	defer s.Shutdown()
	startWorkers(t, s.URL(), 3, WorkerConfig{Engine: toyEngine{}, progressEvery: -1})
	c := testConnect(t, s.URL())
	j := newToyJob(1, 3*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
	if err == nil || !strings.Contains(err.Error(), "delivered 2 times without finishing") {
		t.Fatalf("got %v", err)
	}
}

func TestWorkerDiskCache(t *testing.T) {
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	c := testConnect(t, s.URL())
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run := func(j toyJob) WorkerStats {
		wctx, stop := context.WithCancel(ctx)
		w, err := NewWorker(testConnect(t, s.URL()), WorkerConfig{Engine: toyEngine{}, CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { w.Run(wctx); close(done) }()
		out, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
		stop()
		<-done
		if err != nil || j.check(out) != nil {
			t.Fatalf("submit: %v", err)
		}
		return w.Stats()
	}
	j := newToyJob(2, 0)
	if st := run(j); st.KeyBytes != int64(len(j.key)+len(j.prog)) {
		t.Fatalf("first worker fetched %d bytes, want key and program", st.KeyBytes)
	}
	// A new worker process on the same host reads them from disk.
	j2 := newToyJob(3, 0)
	if st := run(j2); st.KeyBytes != 0 {
		t.Errorf("second worker fetched %d bytes, want 0 (disk cache)", st.KeyBytes)
	}
	// A damaged cache entry is fetched again, not trusted.
	k, _ := toyEngine{}.ParseKey(j.key)
	if err := os.WriteFile(filepath.Join(dir, "key-"+k.ID()), []byte("TOYEVAL damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	j3 := newToyJob(4, 0)
	if st := run(j3); st.KeyBytes != int64(len(j.key)) {
		t.Errorf("third worker fetched %d bytes, want the key again (%d)", st.KeyBytes, len(j.key))
	}
}
