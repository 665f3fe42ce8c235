package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// jobRecord is a job's entry in JobsBucket.
type jobRecord struct {
	Job       string    `json:"job"`
	Key       string    `json:"key"`
	Program   string    `json:"program"`
	Tasks     int       `json:"tasks"`
	Instances int       `json:"instances"`
	Published bool      `json:"published"` // every task is in the stream
	Created   time.Time `json:"created"`
}

// SubmitOptions configures Submit.
type SubmitOptions struct {
	// Engine parses and splits (HCC for the hcc library).
	Engine Engine
	// PerTask is the number of instances per task (0 = one ciphertext's
	// worth: one FHEW instance, one BGV slot pack).
	PerTask int
	// JobID names the job; "" derives it from the key, program, input and
	// PerTask, so submitting the same work again resumes the same job.
	JobID string
	// Progress, if set, is called with tasks done so far and the total.
	Progress func(done, total int)
}

// SubmitStats describes a finished job.
type SubmitStats struct {
	JobID     string
	Tasks     int
	Instances int
	// InputRGSW says the input carried client-side input RGSWs (Batch;
	// set by Submit, which reads the input, not by Resume).
	InputRGSW   bool
	Resumed     bool          // the job was already on the server
	KeyUploaded bool          // the evaluation key was not in the object store yet
	KeyUpload   time.Duration // storing key and program (0 if already there)
	KeyBytes    int64         // size of the evaluation key
	BytesUp     int64         // ciphertext bytes stored for the tasks
	BytesDown   int64         // ciphertext bytes fetched from the results
	EvalSeconds float64       // sum over tasks of the workers' evaluation time
	// FetchSeconds sums the workers' time fetching task inputs (and keys
	// and programs the first time).
	FetchSeconds float64
	Workers      map[string]int // tasks per worker
	Wall         time.Duration
	// Submit is the time until every task was published (parse, key and
	// program, split, parts stored); Assemble the time from the last result
	// to the joined output (fetch, join, check).
	Submit, Assemble time.Duration
}

// Submit evaluates program on the ciphertext set input on the cluster's
// workers and returns the output set, its instances in input order. key is
// the marshalled evaluation key (never the secret key: the engine refuses
// one), program the marshalled compiled program. The key and program are
// stored once under their ids; the batch is split into tasks; Submit waits
// for every result and fails on the first task that failed for good. If the
// job is already on the server (the same JobID), Submit only waits for it.
func (c *Client) Submit(ctx context.Context, key, program, input []byte, o SubmitOptions) ([]byte, SubmitStats, error) {
	start := time.Now()
	var st SubmitStats
	e := o.Engine
	if e == nil {
		return nil, st, errors.New("submit: no engine")
	}
	// The key's header is enough here (the workers decode the key): an
	// engine that can read it spares the submitter decoding the key.
	parseKey := e.ParseKey
	if ki, ok := e.(KeyInspector); ok {
		parseKey = ki.InspectKey
	}
	k, err := parseKey(key)
	if err != nil {
		return nil, st, fmt.Errorf("evaluation key: %w", err)
	}
	p, err := e.ParseProgram(program)
	if err != nil {
		return nil, st, fmt.Errorf("program: %w", err)
	}
	b, err := e.Inspect(input)
	if err != nil {
		return nil, st, fmt.Errorf("input ciphertexts: %w", err)
	}
	if b.KeyID != k.ID() {
		return nil, st, fmt.Errorf("input ciphertexts are for key %s, the evaluation key is %s", b.KeyID, k.ID())
	}
	if b.Circuit != p.Circuit() {
		return nil, st, fmt.Errorf("input ciphertexts are for circuit %s, the program's is %s", b.Circuit, p.Circuit())
	}
	if !validID(k.ID()) || !validID(p.ID()) {
		return nil, st, fmt.Errorf("key id %q or program id %q cannot name an object", k.ID(), p.ID())
	}
	per := o.PerTask
	if per <= 0 {
		per = max(k.Slots(), 1)
	}
	job := o.JobID
	if job == "" {
		h := sha256.New()
		fmt.Fprintf(h, "%s\n%s\n%s\n%d\n", k.ID(), p.ID(), digest(input), per)
		job = hex.EncodeToString(h.Sum(nil))[:24]
	} else if !validID(job) {
		return nil, st, fmt.Errorf("job id %q: use letters, digits, - and _", job)
	}
	st.JobID, st.Instances, st.KeyBytes, st.InputRGSW = job, b.Instances, int64(len(key)), b.InputRGSW

	rec, err := c.job(ctx, job)
	if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, st, err
	}
	found := err == nil
	if found && rec.Published {
		st.Resumed = true
	} else {
		t0 := time.Now()
		up, err := c.putObject(ctx, keyObject(k.ID()), key)
		if err != nil {
			return nil, st, err
		}
		upP, err := c.putObject(ctx, programObject(p.ID()), program)
		if err != nil {
			return nil, st, err
		}
		if up || upP {
			st.KeyUploaded, st.KeyUpload = up, time.Since(t0)
		}
		parts, sizes, err := e.Split(input, per)
		if err != nil {
			return nil, st, fmt.Errorf("split: %w", err)
		}
		if len(sizes) != len(parts) {
			return nil, st, fmt.Errorf("split: %d parts but %d sizes", len(parts), len(sizes))
		}
		created := time.Now().UTC()
		if found {
			// An unpublished record (this submitter crashed while
			// publishing): its tasks keep their message ids.
			created = rec.Created
		}
		rec = jobRecord{Job: job, Key: k.ID(), Program: p.ID(), Tasks: len(parts), Instances: b.Instances, Created: created}
		if err := c.putJob(ctx, rec); err != nil {
			return nil, st, err
		}
		first := 0
		for i, part := range parts {
			if _, err := c.objects.PutBytes(ctx, inputObject(job, i), part); err != nil {
				err = storeError(fmt.Sprintf("store task %d input", i), len(part), err)
				if noRoom(err) {
					// Resuming cannot succeed without room, and the parts
					// stored so far would keep it taken (and their tasks
					// busy workers): drop the job.
					c.cancelJob(rec)
					err = fmt.Errorf("%w; job %s and its %d stored part(s) were deleted", err, job, i)
				}
				return nil, st, err
			}
			st.BytesUp += int64(len(part))
			t := task{Job: job, Index: i, Tasks: len(parts), First: first, Instances: sizes[i],
				Key: k.ID(), Program: p.ID(), InputDigest: digest(part)}
			first += sizes[i]
			data, _ := json.Marshal(t)
			// The message id makes a republished task (after a crash of this
			// submitter) a no-op within the stream's duplicate window. It
			// names the record's creation too: the same job submitted again
			// after it was deleted is new work, not a duplicate.
			msgID := fmt.Sprintf("%s@%d", resultKey(job, i), created.UnixNano())
			if _, err := c.js.Publish(ctx, TaskSubjectPrefix+job, data, jetstream.WithMsgID(msgID)); err != nil {
				return nil, st, fmt.Errorf("publish task %d: %v", i, err)
			}
		}
		if first != b.Instances {
			return nil, st, fmt.Errorf("split: parts hold %d instances, the batch %d", first, b.Instances)
		}
		rec.Published = true
		if err := c.putJob(ctx, rec); err != nil {
			return nil, st, err
		}
	}
	st.Submit = time.Since(start)
	out, err := c.wait(ctx, rec, e, o.Progress, &st)
	st.Tasks = rec.Tasks
	st.Wall = time.Since(start)
	return out, st, err
}

// Resume waits for a job submitted earlier (by this or another process)
// and returns its output, as Submit would have.
func (c *Client) Resume(ctx context.Context, job string, e Engine, progress func(done, total int)) ([]byte, SubmitStats, error) {
	start := time.Now()
	st := SubmitStats{JobID: job, Resumed: true}
	if !validID(job) {
		return nil, st, fmt.Errorf("job id %q is malformed", job)
	}
	rec, err := c.job(ctx, job)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, st, fmt.Errorf("job %s is not on the server (finished and deleted, or never submitted)", job)
	}
	if err != nil {
		return nil, st, err
	}
	if !rec.Published {
		return nil, st, fmt.Errorf("job %s was not fully submitted: submit it again", job)
	}
	out, err := c.wait(ctx, rec, e, progress, &st)
	st.Tasks, st.Instances, st.Wall = rec.Tasks, rec.Instances, time.Since(start)
	return out, st, err
}

func (c *Client) job(ctx context.Context, job string) (jobRecord, error) {
	var rec jobRecord
	ent, err := c.jobs.Get(ctx, job)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(ent.Value(), &rec); err != nil {
		return rec, fmt.Errorf("job %s: damaged record: %v", job, err)
	}
	return rec, nil
}

func (c *Client) putJob(ctx context.Context, rec jobRecord) error {
	data, _ := json.Marshal(rec)
	if _, err := c.jobs.Put(ctx, rec.Job, data); err != nil {
		return fmt.Errorf("job record: %v", err)
	}
	return nil
}

// wait collects the job's results (those already in, then new ones), then
// fetches the outputs in order and joins them.
func (c *Client) wait(ctx context.Context, rec jobRecord, e Engine, progress func(done, total int), st *SubmitStats) ([]byte, error) {
	stop := c.failExhausted(ctx)
	defer stop()
	results := make(map[int]result, rec.Tasks)
	st.Workers = map[string]int{}
	if progress != nil {
		progress(0, rec.Tasks)
	}
	for len(results) < rec.Tasks {
		if err := c.watchResults(ctx, rec, results, progress); err != nil {
			return nil, err
		}
		if len(results) < rec.Tasks {
			// Reconnected: the job must still be there (a server without a
			// store loses everything when it restarts).
			if _, err := c.job(ctx, rec.Job); errors.Is(err, jetstream.ErrKeyNotFound) {
				return nil, fmt.Errorf("job %s is gone from the server (restarted without --store, or deleted): submit it again", rec.Job)
			}
		}
		for i, r := range results {
			if !r.OK {
				c.cancelJob(rec)
				where := ""
				if r.Worker != "" {
					where = " on worker " + r.Worker
				}
				return nil, fmt.Errorf("job %s: task %d of %d failed%s: %s", rec.Job, i, rec.Tasks, where, r.Error)
			}
		}
	}
	t0 := time.Now()
	defer func() { st.Assemble = time.Since(t0) }()
	parts := make([][]byte, rec.Tasks)
	for i := range parts {
		r := results[i]
		data, err := c.getObject(ctx, r.Output, r.OutputDigest)
		if err != nil {
			return nil, fmt.Errorf("task %d output: %w", i, err)
		}
		parts[i] = data
		st.BytesDown += int64(len(data))
		st.EvalSeconds += r.EvalSeconds
		st.FetchSeconds += r.FetchSeconds
		st.Workers[r.Worker]++
	}
	out, err := e.Join(parts)
	if err != nil {
		return nil, fmt.Errorf("join the task outputs: %w", err)
	}
	ob, err := e.Inspect(out)
	if err != nil {
		return nil, fmt.Errorf("joined output: %w", err)
	}
	if ob.Instances != rec.Instances {
		return nil, fmt.Errorf("joined output has %d instances, the input %d", ob.Instances, rec.Instances)
	}
	return out, nil
}

// watchResults adds results to the map from a watcher on the job's keys,
// until a task failed, all are in, or the connection was re-established
// (after a server restart); a fresh watcher replays every stored result, so
// nothing is missed.
func (c *Client) watchResults(ctx context.Context, rec jobRecord, results map[int]result, progress func(done, total int)) error {
	reconnects := c.nc.Stats().Reconnects
	w, err := c.results.Watch(ctx, rec.Job+".*", jetstream.IgnoreDeletes())
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sleep(ctx, 500*time.Millisecond) // server restarting: try again
		return nil
	}
	defer w.Stop()
	check := time.NewTicker(time.Second)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("job %s: %w (%d of %d tasks done; submit again or resume job %s to pick up the results)",
				rec.Job, ctx.Err(), len(results), rec.Tasks, rec.Job)
		case <-check.C:
			if c.nc.Stats().Reconnects != reconnects {
				return nil
			}
		case ent, ok := <-w.Updates():
			if !ok {
				return nil
			}
			if ent == nil {
				continue // the stored results are replayed; live ones follow
			}
			_, idx, _ := strings.Cut(ent.Key(), ".")
			i, err := strconv.Atoi(idx)
			if err != nil || i < 0 || i >= rec.Tasks {
				continue
			}
			var r result
			if json.Unmarshal(ent.Value(), &r) != nil {
				continue
			}
			if _, seen := results[i]; seen {
				continue
			}
			results[i] = r
			if progress != nil {
				progress(len(results), rec.Tasks)
			}
			if !r.OK || len(results) == rec.Tasks {
				return nil
			}
		}
	}
}

// cancelJob drops a failed job's queued tasks, so workers do not spend time
// on a job nobody will assemble, and deletes its data.
func (c *Client) cancelJob(rec jobRecord) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.tasks.Purge(ctx, jetstream.WithPurgeSubject(TaskSubjectPrefix+rec.Job))
	c.DeleteJob(ctx, rec.Job)
}

// DeleteJob deletes a job's record, queued tasks, results and ciphertext
// parts (not the key and program, which other jobs share). Call it once the
// output is safely written.
func (c *Client) DeleteJob(ctx context.Context, job string) error {
	rec, err := c.job(ctx, job)
	if err != nil {
		return err
	}
	c.tasks.Purge(ctx, jetstream.WithPurgeSubject(TaskSubjectPrefix+job))
	var errs []error
	for i := 0; i < rec.Tasks; i++ {
		rk := resultKey(job, i)
		if ent, err := c.results.Get(ctx, rk); err == nil {
			var r result
			if json.Unmarshal(ent.Value(), &r) == nil && r.Output != "" {
				c.objects.Delete(ctx, r.Output)
			}
			c.results.Purge(ctx, rk)
		}
		if err := c.objects.Delete(ctx, inputObject(job, i)); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			errs = append(errs, err)
		}
	}
	// Outputs of workers that died between storing and recording them.
	if infos, err := c.objects.List(ctx); err == nil {
		for _, info := range infos {
			if strings.HasPrefix(info.Name, "out/"+job+"/") || strings.HasPrefix(info.Name, "in/"+job+"/") {
				c.objects.Delete(ctx, info.Name)
			}
		}
	}
	if err := c.jobs.Purge(ctx, job); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Jobs lists the ids of the jobs on the server, sorted.
func (c *Client) Jobs(ctx context.Context) ([]string, error) {
	keys, err := c.jobs.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	sort.Strings(keys)
	return keys, err
}

// Conn is the underlying NATS connection (for monitoring and tests).
func (c *Client) Conn() *nats.Conn { return c.nc }
