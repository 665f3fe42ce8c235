package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	goruntime "runtime"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// maxLUTInputs bounds the LUT mapper's cuts. The target still decides which
// functions are allowed (fhew.LUTTarget: LUTs within 2^-40 failure, PARITY
// nodes within --parity-failure), so on
// STD128_T wide cuts survive only as cheap parities. Six inputs cost mapping
// time (aes_128: about 6 s instead of 1.5 s at 4) and save bootstraps (20012
// instead of 21809 at STD128_LOWFAIL_T), a good trade for any circuit whose
// run takes longer than its compile.
const maxLUTInputs = 6

func evalCommand() *command {
	w := &workflowFlags{}
	return &command{
		name: "eval", args: "CIRCUIT IN.ct", nargs: 2, doc: "evaluate a circuit on encrypted inputs with the evaluation key (no secret key)",
		run: func(e *cmdEnv) error { return runEval(e, w) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.StringVar(&w.evalKey, "eval-key", "", "evaluation key `FILE` (DIR/eval.key from hcc keygen)")
			threadsFlag(fs, w)
			w.parityFailureFlag(fs)
			outFlag(fs, e, "write the encrypted outputs to `FILE` (e.g. out.ct)")
		},
	}
}

func threadsFlag(fs *flag.FlagSet, w *workflowFlags) {
	fs.IntVar(&w.threads, "threads", goruntime.GOMAXPROCS(0), "gates (FHEW bootstraps, BGV multiplications) run in parallel on `N` worker goroutines")
}

func runEval(e *cmdEnv, w *workflowFlags) error {
	if e.out == "" {
		return fmt.Errorf("missing -o FILE for the encrypted outputs")
	}
	be, kf, err := loadEvalKey(w.evalKey, w)
	if err != nil {
		return err
	}
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	path := e.args[1]
	f, err := openCtFileFor(path, ctInputs, c, e.args[0], kf.key, w.evalKey, c.Inputs)
	if err != nil {
		return err
	}
	d, err := be.compile(e, c)
	if err != nil {
		return err
	}
	in, err := f.ciphertexts(path, kf, be)
	if err != nil {
		return err
	}
	outs, err := be.eval(e, w, d, in)
	if err != nil {
		return err
	}
	g := &ctFile{
		fileHeader:  fileHeader{kind: ctOutputs, backend: kf.backend, params: kf.params, key: kf.key},
		circuitHash: f.circuitHash, circuitName: c.Name, layout: layoutOf(c.Outputs), instances: f.instances,
	}
	if err := g.setCiphertexts(be, outs); err != nil {
		return err
	}
	return writeFileMode(e.out, g.marshal(), 0o644)
}

// compileFHEW is eval's compile pipeline: optimize.ForLUTs (constant
// folding and hashing, NOT absorption, dead-gate removal, LUT mapping with
// up to maxLUTInputs inputs against the target's LUT capability). It is
// deterministic, so the server and a client re-running it get the same
// circuit; the interface (input and output buses) is unchanged. observe, if
// non-nil, sees the circuit after every pass (hcc compile -v).
func compileFHEW(c *ir.Circuit, target fhew.LUTTarget, observe func(pass string, c *ir.Circuit)) (*ir.Circuit, error) {
	pipe := optimize.ForLUTs(target, maxLUTInputs)
	pipe.Observe = observe
	d, err := pipe.Run(c)
	if err != nil {
		return nil, fmt.Errorf("compiling %q: %w", c.Name, err)
	}
	if d.NumInputBits() != c.NumInputBits() || d.NumOutputBits() != c.NumOutputBits() {
		return nil, fmt.Errorf("internal error: compiling %q changed its interface", c.Name)
	}
	return d, nil
}

// evalEncrypted compiles c for be and runs it on the encrypted inputs
// (compileFHEWReport, then runFHEW).
func evalEncrypted(e *cmdEnv, w *workflowFlags, c *ir.Circuit, be *fhew.Backend, in []backend.Ciphertext) ([]backend.Ciphertext, error) {
	d, err := compileFHEWReport(e, c, be)
	if err != nil {
		return nil, err
	}
	return runFHEW(e, w, d, be, in)
}

// compileFHEWReport compiles c for be and reports the bootstraps before and
// after on stderr.
func compileFHEWReport(e *cmdEnv, c *ir.Circuit, be *fhew.Backend) (*ir.Circuit, error) {
	t0 := time.Now()
	d, err := compileFHEW(c, be.LUTTarget(), nil)
	if err != nil {
		return nil, err
	}
	target := be.LUTTarget()
	st := d.StatsFor(target.Cost())
	fmt.Fprintf(e.stderr, "compiled %s in %v: %d -> %d bootstraps (%d LUTs, %d PARITY), bootstrap depth %d, %s\n",
		c.Name, time.Since(t0).Round(time.Millisecond), target.CircuitBootstraps(c), st.Costly, st.Count[ir.OpLUT], st.Count[ir.OpParity], st.CostDepth,
		predictedFailure(target.Params(), d))
	return d, nil
}

// predictedFailure describes the noise model's failure probability of one
// run of d (fhew.Params.CircuitFailure: a union bound over its bootstraps),
// the number a user weighs against --parity-failure.
func predictedFailure(p fhew.Params, d *ir.Circuit) string {
	cf, err := p.CircuitFailure(d)
	switch {
	case err != nil:
		return fmt.Sprintf("predicted failure unknown (%v)", err)
	case cf.Bootstraps == 0:
		return "no bootstraps, no failure"
	}
	return fmt.Sprintf("predicted failure 2^%.1f per run", cf.Log2Failure)
}

// runFHEW runs the compiled circuit d on the encrypted inputs, reporting
// the run's stats on stderr (and progress when stderr is a terminal).
// Interrupts cancel the run.
func runFHEW(e *cmdEnv, w *workflowFlags, d *ir.Circuit, be *fhew.Backend, in []backend.Ciphertext) ([]backend.Ciphertext, error) {
	outs, stats, err := runOn(e, w, d, be, in)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stderr, "evaluated: %v\n", stats)
	return outs, nil
}

// runOn is the runtime call both backends share: --threads, progress on a
// terminal, interrupts cancel, and the inputs are released as the run goes
// (nothing reads them afterwards).
func runOn(e *cmdEnv, w *workflowFlags, d *ir.Circuit, be backend.Evaluator, in []backend.Ciphertext) ([]backend.Ciphertext, hccrt.Stats, error) {
	if w.threads < 1 {
		return nil, hccrt.Stats{}, fmt.Errorf("--threads must be at least 1, got %d", w.threads)
	}
	opts := hccrt.Options{Threads: w.threads, ReleaseInputs: true}
	if f, ok := e.stderr.(*os.File); ok && hccrt.IsTerminal(f) {
		opts.Progress = f
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return hccrt.Run(ctx, d, be, in, opts)
}
