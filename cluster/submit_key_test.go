package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc"
)

// parseCounting is an engine without InspectKey that counts the keys it
// decodes.
type parseCounting struct {
	Engine
	parses *atomic.Int32
}

func (e parseCounting) ParseKey(data []byte) (EvalKey, error) {
	e.parses.Add(1)
	return e.Engine.ParseKey(data)
}

// inspectCounting is parseCounting with the header reader, counted too.
type inspectCounting struct {
	parseCounting
	inspects *atomic.Int32
}

func (e inspectCounting) InspectKey(data []byte) (EvalKey, error) {
	e.inspects.Add(1)
	return e.Engine.(KeyInspector).InspectKey(data)
}

// TestSubmitReadsKeyHeaderOnly (F10): Submit with the hcc engine decodes no
// key (the workers do; they run their own engine): it reads the key's id
// and slots from its header, and the job still comes out right. An engine
// without InspectKey is still served by ParseKey, once.
func TestSubmitReadsKeyHeaderOnly(t *testing.T) {
	j := newHCCJob(t, hcc.Target{Engine: "fhew", Params: "ToySignedCMux", Insecure: true}, 2)
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	startWorkers(t, s.URL(), 1, WorkerConfig{Engine: HCC, CacheDir: t.TempDir()})
	c := testConnect(t, s.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var parses, inspects atomic.Int32
	e := inspectCounting{parseCounting{HCC, &parses}, &inspects}
	out, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: e, PerTask: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.check(out); err != nil {
		t.Fatal(err)
	}
	if parses.Load() != 0 || inspects.Load() != 1 {
		t.Errorf("Submit decoded the key %d times and read its header %d times, want 0 and 1", parses.Load(), inspects.Load())
	}

	parses.Store(0)
	out, _, err = c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: parseCounting{HCC, &parses}, PerTask: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.check(out); err != nil {
		t.Fatal(err)
	}
	if parses.Load() != 1 {
		t.Errorf("Submit with an engine without InspectKey decoded the key %d times, want 1", parses.Load())
	}
}

// TestHCCInspectKey: the header reader agrees with ParseKey on id and
// slots (FHEW and BGV) and refuses a secret key with ParseKey's message.
func TestHCCInspectKey(t *testing.T) {
	for _, tg := range []hcc.Target{{Engine: "fhew", Params: "ToySigned", Insecure: true}, {Engine: "bgv", Params: "ToyM257", Insecure: true}} {
		j := newHCCJob(t, tg, 1)
		full, err := HCC.ParseKey(j.key)
		if err != nil {
			t.Fatal(err)
		}
		head, err := HCC.(KeyInspector).InspectKey(j.key)
		if err != nil {
			t.Fatal(err)
		}
		if head.ID() != full.ID() || head.Slots() != full.Slots() {
			t.Errorf("%s: header %s/%d, key %s/%d", tg.Params, head.ID(), head.Slots(), full.ID(), full.Slots())
		}
		secret, err := j.ck.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		_, perr := HCC.ParseKey(secret)
		_, ierr := HCC.(KeyInspector).InspectKey(secret)
		if perr == nil || ierr == nil || perr.Error() != ierr.Error() {
			t.Errorf("%s: secret key: ParseKey %v, InspectKey %v", tg.Params, perr, ierr)
		}
	}
}

// TestWorkersShareKey: a worker made with ShareWith uses the other's
// parsed keys (one decoded key per process, not one per worker: hcc serve
// --workers 2 held two on STD128_T_CMUX) and its engine, and the jobs the
// two evaluate, on one key from two goroutines, come out right.
func TestWorkersShareKey(t *testing.T) {
	j := newHCCJob(t, hcc.Target{Engine: "fhew", Params: "ToySigned", Insecure: true}, 6)
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	var parses atomic.Int32
	w1, err := NewWorker(testConnect(t, s.URL()), WorkerConfig{Engine: parseCounting{HCC, &parses}})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := NewWorker(testConnect(t, s.URL()), WorkerConfig{ShareWith: w1})
	if err != nil {
		t.Fatal(err)
	}
	if w2.cache != w1.cache || w2.cfg.ShareWith != nil {
		t.Fatal("the second worker has a cache of its own, or keeps the first alive")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wctx, stop := context.WithCancel(ctx)
	for _, w := range []*Worker{w1, w2} {
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(wctx) }()
	}
	defer func() { stop(); wg.Wait() }()
	c := testConnect(t, s.URL())
	out, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: HCC, PerTask: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.check(out); err != nil {
		t.Fatal(err)
	}
	t.Logf("tasks: %d and %d", w1.Stats().Tasks, w2.Stats().Tasks)
	if parses.Load() != 1 {
		t.Errorf("the two workers decoded the key %d times, want 1", parses.Load())
	}
}

// TestSubmitAgainAfterDelete: the same job (same key, program, input and
// task size: the same job id) submitted again after it finished and was
// deleted runs again. Its tasks were dropped as duplicates of the first
// run's messages (their message ids, inside the stream's 10-minute
// duplicate window), and the second submission waited forever.
func TestSubmitAgainAfterDelete(t *testing.T) {
	j := newHCCJob(t, hcc.Target{Engine: "fhew", Params: "ToySigned", Insecure: true}, 2)
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	startWorkers(t, s.URL(), 1, WorkerConfig{Engine: HCC})
	c := testConnect(t, s.URL())
	for round := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, st, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: HCC, PerTask: 1})
		if err != nil {
			cancel()
			t.Fatalf("submission %d: %v", round+1, err)
		}
		if err := j.check(out); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteJob(ctx, st.JobID); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
}
