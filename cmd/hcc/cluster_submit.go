package main

// hcc submit: evaluate a ciphertext batch on the cluster's workers.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/cluster"
)

func submitCommand() *command {
	var (
		cf             clusterFlags
		evalKey, job   string
		perTask        int
		insecure, keep bool
		timeout        time.Duration
	)
	return &command{name: "submit", args: "PROGRAM IN.ct", nargs: 2,
		doc: "evaluate a ciphertext batch on the workers of an hcc serve server (split, wait with progress, assemble)",
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			cf.declare(fs)
			fs.StringVar(&evalKey, "eval-key", "", "the evaluation key `FILE` (keys/eval.key; never the secret key)")
			outFlag(fs, e, "write the output ciphertexts to `OUT.ct`")
			fs.IntVar(&perTask, "per-task", 0, "instances per task (0 = one ciphertext's worth: 1 on FHEW, one slot pack on BGV)")
			fs.StringVar(&job, "job", "", "job `ID` (default: derived from key, program and input, so submitting again resumes)")
			fs.BoolVar(&insecure, "insecure", false, "allow the insecure Toy parameter sets when compiling PROGRAM from source")
			fs.BoolVar(&keep, "keep", false, "keep the job's data on the server after writing the output")
			fs.DurationVar(&timeout, "timeout", 0, "give up waiting after this long (0 = never; the job stays and can be resumed)")
		},
		run: func(e *cmdEnv) error {
			if evalKey == "" {
				return errors.New("--eval-key is required (the evaluation key, keys/eval.key)")
			}
			if e.out == "" {
				return errors.New("-o OUT.ct is required")
			}
			if err := hcc.CheckWritable(e.out); err != nil {
				return err
			}
			keyData, err := readLimited(evalKey, "evaluation key", maxSubmitUpload, true)
			if err != nil {
				return err
			}
			// Refuse a secret key before anything else reads it or sends it.
			// The header says the set to compile for; the key is only
			// uploaded (the workers decode it), so it is not decoded here
			// (350 MB on STD128_T_CMUX).
			sk, err := hcc.InspectServerKey(keyData)
			if err != nil {
				// The cluster engine's message, which names a secret key.
				_, err = cluster.HCC.(cluster.KeyInspector).InspectKey(keyData)
				return fmt.Errorf("%s: %v", evalKey, err)
			}
			prog, err := hcc.CompileFile(e.args[0], hcc.Target{Engine: sk.Engine(), Params: sk.Params(), Insecure: insecure})
			if err != nil {
				return err
			}
			progData, err := prog.MarshalBinary()
			if err != nil {
				return err
			}
			in, err := readLimited(e.args[1], "ciphertext file", maxSubmitUpload, true)
			if err != nil {
				return err
			}
			ctx, stop := interrupted()
			defer stop()
			if timeout > 0 {
				var cancel func()
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			c, err := cf.connect(ctx, "hcc-submit")
			if err != nil {
				return err
			}
			defer c.Close()
			var last time.Time
			var mu sync.Mutex
			started := false
			progress := func(done, total int) {
				mu.Lock()
				defer mu.Unlock()
				started = started || done > 0
				if done == total || time.Since(last) >= time.Second {
					fmt.Fprintf(e.stderr, "submit: %d/%d tasks done\n", done, total)
					last = time.Now()
				}
			}
			// Say so when nobody works on the job, instead of waiting silently.
			go func() {
				for range 3 {
					select {
					case <-ctx.Done():
						return
					case <-time.After(10 * time.Second):
					}
					mu.Lock()
					s := started
					mu.Unlock()
					idle, busy, _, err := c.Activity(ctx)
					if s || err != nil || idle > 0 || busy > 0 {
						return
					}
					fmt.Fprintf(e.stderr, "submit: no worker is connected to %s yet (start hcc worker --server URL)\n", cf.server)
				}
			}()
			e.warnInsecure(sk)
			out, st, err := c.Submit(ctx, keyData, progData, in, cluster.SubmitOptions{Engine: cluster.HCC, PerTask: perTask, JobID: job, Progress: progress})
			if err != nil {
				return err
			}
			if err := hcc.WriteFile(e.out, out, 0o644); err != nil {
				return err
			}
			if !keep {
				if err := c.DeleteJob(ctx, st.JobID); err != nil {
					fmt.Fprintf(e.stderr, "submit: warning: deleting job %s: %v\n", st.JobID, err)
				}
			}
			fmt.Fprintln(e.stderr, submitSummary(st))
			return nil
		}}
}

// submitSummary is the one-line report of a finished job.
func submitSummary(st cluster.SubmitStats) string {
	var b strings.Builder
	with := ""
	if st.InputRGSW {
		with = " (with their input RGSWs)"
	}
	fmt.Fprintf(&b, "submit: job %s: %d instances%s in %d tasks on %d workers in %v", st.JobID, st.Instances, with, st.Tasks, len(st.Workers), st.Wall.Round(time.Millisecond))
	if st.Resumed {
		b.WriteString(" (resumed)")
	}
	switch {
	case st.KeyUploaded:
		fmt.Fprintf(&b, "; evaluation key (%.1f MB) and program stored in %v", float64(st.KeyBytes)/1e6, st.KeyUpload.Round(time.Millisecond))
	case !st.Resumed:
		b.WriteString("; evaluation key already on the server")
	}
	fmt.Fprintf(&b, "; ciphertexts %.2f MB up, %.2f MB down; %.1f s of worker evaluation; split and store %v, assemble %v",
		float64(st.BytesUp)/1e6, float64(st.BytesDown)/1e6, st.EvalSeconds, st.Submit.Round(time.Millisecond), st.Assemble.Round(time.Millisecond))
	return b.String()
}
