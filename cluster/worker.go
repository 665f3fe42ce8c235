package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/hcc-fhe/hcc"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// task is a task message's payload: ids only, the ciphertexts are objects.
type task struct {
	Job         string `json:"job"`
	Index       int    `json:"index"`
	Tasks       int    `json:"tasks"`
	First       int    `json:"first"`     // first instance of the batch in this task
	Instances   int    `json:"instances"` // instances in this task
	Key         string `json:"key"`
	Program     string `json:"program"`
	InputDigest string `json:"input_digest"`
}

// result is a task's outcome, written once under ResultsBucket JOB.TASK.
type result struct {
	OK           bool    `json:"ok"`
	Output       string  `json:"output,omitempty"` // object name
	OutputDigest string  `json:"output_digest,omitempty"`
	Error        string  `json:"error,omitempty"`
	Permanent    bool    `json:"permanent,omitempty"`
	Worker       string  `json:"worker"`
	Delivery     int     `json:"delivery"`
	FetchSeconds float64 `json:"fetch_seconds"` // key, program (first time) and input
	EvalSeconds  float64 `json:"eval_seconds"`  // Engine.Eval, parsing and marshalling included
	InBytes      int64   `json:"in_bytes"`
	OutBytes     int64   `json:"out_bytes"`
}

// WorkerConfig configures a worker.
type WorkerConfig struct {
	// Engine evaluates (HCC for the hcc library).
	Engine Engine
	// Threads per task (0 = 1); more than hcc.MaxThreads() is refused by
	// NewWorker (hcc.Eval would refuse every task).
	Threads int
	// CacheDir keeps fetched keys and programs on disk ("" = memory only).
	CacheDir string
	// Name identifies the worker in results and logs ("" = host-pid-random).
	Name string
	// Logf, if set, receives one line per task.
	Logf func(format string, args ...any)
	// ShareWith, if set, is another worker of this process whose parsed
	// keys and programs (and CacheDir) this one uses, instead of decoding
	// its own copy of each key (252 MB each on STD128_T_CMUX): a parsed
	// key is immutable, and the Engine must allow Eval on one key from
	// several goroutines (HCC does: hcc.ServerKey is safe for concurrent
	// use). Engine and CacheDir are then the other worker's.
	ShareWith *Worker

	// progressEvery overrides the in-progress interval (tests: < 0 never).
	progressEvery time.Duration
}

// WorkerStats counts a worker's work so far.
type WorkerStats struct {
	Tasks      int64 // tasks evaluated and accepted
	Duplicates int64 // tasks whose result another worker had written first
	Failed     int64 // tasks that failed
	KeyBytes   int64 // bytes of evaluation keys and programs fetched
	KeyFetch   time.Duration
}

// Worker pulls tasks, evaluates them and writes their results.
type Worker struct {
	c     *Client
	cfg   WorkerConfig
	cache *cache

	tasks, dups, failed, keyBytes, keyNanos atomic.Int64
}

// NewWorker returns a worker on c; Run starts it.
func NewWorker(c *Client, cfg WorkerConfig) (*Worker, error) {
	share := cfg.ShareWith
	if share != nil {
		cfg.ShareWith = nil // keep no chain of workers alive
		cfg.Engine, cfg.CacheDir = share.cfg.Engine, share.cfg.CacheDir
	}
	if cfg.Engine == nil {
		return nil, errors.New("worker: no engine")
	}
	cfg.Threads = max(cfg.Threads, 1)
	if m := hcc.MaxThreads(); cfg.Threads > m {
		return nil, fmt.Errorf("worker: %d threads per task is more than the %d hcc.Eval accepts on this machine (4 per CPU, at least 16): every task would fail; use at most %d", cfg.Threads, m, m)
	}
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), nuid.Next()[16:])
	}
	if share != nil {
		return &Worker{c: c, cfg: cfg, cache: share.cache}, nil
	}
	ca, err := newCache(cfg.CacheDir, cfg.Engine)
	if err != nil {
		return nil, err
	}
	return &Worker{c: c, cfg: cfg, cache: ca}, nil
}

// Stats returns the worker's counters.
func (w *Worker) Stats() WorkerStats {
	return WorkerStats{Tasks: w.tasks.Load(), Duplicates: w.dups.Load(), Failed: w.failed.Load(),
		KeyBytes: w.keyBytes.Load(), KeyFetch: time.Duration(w.keyNanos.Load())}
}

func (w *Worker) logf(format string, args ...any) {
	if w.cfg.Logf != nil {
		w.cfg.Logf(format, args...)
	}
}

// Run pulls and evaluates tasks one at a time until ctx is done; it rides
// out server restarts. A task cut off by ctx is handed back for redelivery.
func (w *Worker) Run(ctx context.Context) error {
	stop := w.c.failExhausted(ctx)
	defer stop()
	for ctx.Err() == nil {
		cons, err := w.c.tasks.Consumer(ctx, WorkersConsumer)
		if err != nil {
			sleep(ctx, 500*time.Millisecond)
			continue
		}
		for ctx.Err() == nil {
			// The pull request expires at the server before the deadline, so
			// no message is left with an abandoned request; cancelling ctx
			// (shutdown) ends the wait at once.
			fctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			msg, err := cons.Next(jetstream.FetchContext(fctx))
			cancel()
			if err != nil {
				if errors.Is(err, nats.ErrTimeout) || errors.Is(err, jetstream.ErrNoMessages) ||
					errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
					continue
				}
				if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted) {
					break
				}
				sleep(ctx, 250*time.Millisecond)
				continue
			}
			w.handle(ctx, msg)
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// handle evaluates one task and acknowledges it.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	delivery := 1
	if md, err := msg.Metadata(); err == nil {
		delivery = int(md.NumDelivered)
	}
	var t task
	if err := json.Unmarshal(msg.Data(), &t); err != nil || !validID(t.Job) || t.Index < 0 {
		w.logf("task %s: malformed payload, dropped", msg.Subject())
		msg.TermWithReason("malformed task")
		return
	}
	if _, err := w.c.jobs.Get(ctx, t.Job); errors.Is(err, jetstream.ErrKeyNotFound) {
		// The job failed or was deleted: nobody will assemble it.
		msg.TermWithReason("job deleted")
		return
	}
	rk := resultKey(t.Job, t.Index)
	if _, err := w.c.results.Get(ctx, rk); err == nil {
		// A redelivery of a task whose result is in: only the ack was lost.
		w.dups.Add(1)
		msg.Ack()
		return
	}

	every := w.cfg.progressEvery
	if every == 0 {
		every = w.c.tuning.AckWait / 4
	}
	evalCtx, cancel := context.WithCancel(ctx)
	// Progress signals go on until the ack: storing a large output counts.
	done := make(chan struct{})
	defer close(done)
	go func() {
		if every < 0 {
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				msg.InProgress() // keep the task ours while we work
			}
		}
	}()
	out, res, err := w.evaluate(evalCtx, t)
	cancel()
	res.Worker, res.Delivery = w.cfg.Name, delivery

	if err != nil && ctx.Err() != nil {
		msg.Nak() // shutting down: let another worker have it now
		return
	}
	final := err != nil && (IsPermanent(err) || delivery >= w.c.tuning.MaxDeliver)
	if err != nil && !final {
		w.logf("task %s: %v (delivery %d of %d, will retry)", rk, err, delivery, w.c.tuning.MaxDeliver)
		msg.NakWithDelay(time.Second)
		return
	}
	if err != nil {
		res.OK, res.Error, res.Permanent = false, err.Error(), IsPermanent(err)
	} else {
		res.OK = true
		res.Output = outputObject(t.Job, t.Index, w.cfg.Name)
		res.OutputDigest = digest(out)
		if _, perr := w.c.objects.PutBytes(ctx, res.Output, out); perr != nil {
			w.logf("task %s: %v (will retry)", rk, storeError("storing the output", len(out), perr))
			msg.NakWithDelay(time.Second)
			return
		}
	}
	dup, err2 := w.c.writeResult(ctx, rk, res)
	switch {
	case err2 != nil:
		w.logf("task %s: writing the result: %v (will retry)", rk, err2)
		msg.NakWithDelay(time.Second)
		return
	case dup:
		w.dups.Add(1)
		if res.Output != "" {
			w.c.objects.Delete(ctx, res.Output)
		}
		w.logf("task %s: a result was already in, ours is ignored", rk)
	case err != nil:
		w.failed.Add(1)
		w.logf("task %s: failed: %v", rk, err)
	default:
		w.tasks.Add(1)
		w.logf("task %s: %d instances in %.2f s", rk, t.Instances, res.EvalSeconds)
	}
	if err != nil {
		msg.TermWithReason(res.Error)
		return
	}
	msg.DoubleAck(ctx)
}

// evaluate fetches what the task names and runs it.
func (w *Worker) evaluate(ctx context.Context, t task) ([]byte, result, error) {
	var res result
	if !validID(t.Key) || !validID(t.Program) {
		return nil, res, Permanent(errors.New("task names a malformed key or program id"))
	}
	t0 := time.Now()
	key, ks, err := w.cache.key(ctx, w.c, t.Key)
	if err != nil {
		return nil, res, err
	}
	prog, ps, err := w.cache.program(ctx, w.c, t.Program)
	if err != nil {
		return nil, res, err
	}
	if ks.fetched || ps.fetched {
		w.keyBytes.Add(ks.bytes + ps.bytes)
		w.keyNanos.Add(int64(time.Since(t0)))
	}
	in, err := w.c.getObject(ctx, inputObject(t.Job, t.Index), t.InputDigest)
	if err != nil {
		return nil, res, err
	}
	res.InBytes = int64(len(in))
	t1 := time.Now()
	res.FetchSeconds = t1.Sub(t0).Seconds()
	out, err := w.cfg.Engine.Eval(ctx, prog, key, in, w.cfg.Threads)
	if err != nil {
		return nil, res, err
	}
	res.EvalSeconds = time.Since(t1).Seconds()
	res.OutBytes = int64(len(out))
	return out, res, nil
}

// writeResult writes a task's result unless one is there already; the first
// result wins, so a slow worker finishing after a redelivery changes nothing.
func (c *Client) writeResult(ctx context.Context, key string, r result) (duplicate bool, err error) {
	data, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	_, err = c.results.Create(ctx, key, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return true, nil
	}
	return false, err
}

// maxDeliveriesAdvisory is the part of JetStream's advisory we read.
type maxDeliveriesAdvisory struct {
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// failExhausted listens for tasks that JetStream gave up on (delivered
// MaxDeliver times without an ack: each worker crashed or hung) and writes a
// failed result for them, so the job fails with a reason instead of waiting
// forever. Workers and submitters both listen; the first result wins.
func (c *Client) failExhausted(ctx context.Context) (stop func()) {
	subject := "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + TasksStream + "." + WorkersConsumer
	sub, err := c.nc.Subscribe(subject, func(m *nats.Msg) {
		var a maxDeliveriesAdvisory
		if json.Unmarshal(m.Data, &a) != nil || a.StreamSeq == 0 {
			return
		}
		raw, err := c.tasks.GetMsg(ctx, a.StreamSeq)
		if err != nil {
			return // another listener handled it
		}
		var t task
		if json.Unmarshal(raw.Data, &t) != nil {
			return
		}
		c.writeResult(ctx, resultKey(t.Job, t.Index), result{
			Error: fmt.Sprintf("delivered %d times without finishing (each worker crashed or exceeded the ack wait)", a.Deliveries),
		})
		c.tasks.DeleteMsg(ctx, a.StreamSeq)
	})
	if err != nil {
		return func() {}
	}
	return func() { sub.Unsubscribe() }
}
