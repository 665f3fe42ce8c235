package runtime

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// IsTerminal reports whether f is an interactive terminal: progress lines are
// drawn only there, so piped output stays clean.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// startProgress draws "done/total bootstraps, rate, ETA" (with the
// backend's cost name) every interval on opts.Progress and returns a
// function that stops it and ends the line.
func (r *run) startProgress(opts Options, start time.Time) (stop func()) {
	if opts.Progress == nil || r.s.costly == 0 {
		return func() {}
	}
	every := opts.ProgressEvery
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				writeProgress(opts.Progress, int(r.done.Load()), r.s.costly, r.costName, time.Since(start))
				fmt.Fprintln(opts.Progress)
				return
			case <-t.C:
				writeProgress(opts.Progress, int(r.done.Load()), r.s.costly, r.costName, time.Since(start))
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

func writeProgress(w io.Writer, done, total int, name string, elapsed time.Duration) {
	rate := float64(done) / elapsed.Seconds()
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(w, "\r%d/%d %s (%.0f%%), %.1f/s, ETA %s   ", done, total, name, 100*float64(done)/float64(total), rate, eta)
}
