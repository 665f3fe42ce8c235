package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// workflowFlags are the flags of compile --backend, keygen, encrypt, eval,
// decrypt and run. Parameter choice, packing and file formats are the hcc
// package's; this file only turns flags into its arguments.
type workflowFlags struct {
	backend  string
	params   string
	insecure bool
	key      string // secret key file
	evalKey  string // evaluation key file
	threads  int
	check    bool
	batch    string // --batch FILE: one input set per line
	force    bool
	// forceMemory is --force of run, eval and encrypt: run past the
	// memory estimate.
	forceMemory bool
	program     string // keygen --for: a compiled program file
	instances   int
	// parityFailure is --parity-failure: log2 of the per-bootstrap failure
	// bound that sets FHEW's PARITY width.
	parityFailure float64
	// inputRGSW is --input-rgsw of encrypt and run
	// (hcc.EncryptOptions.InputRGSW).
	inputRGSW bool
}

// inputRGSWHelp is --input-rgsw's usage: what it costs and what it gains.
const inputRGSWHelp = "wide-table sets (STD128_CBS, STD128_CBS_595, ToyCBS): also encrypt every input bit as an RGSW ciphertext, " +
	"so that the table inputs reading only input bits need no circuit bootstrap (AES-128: 1440 instead of 1600 bootstraps, about 0.9x the CPU); " +
	"the inputs are about 7x larger (per bit 16 KiB + 96 KiB in the file, + 192 KiB in memory at STD128_CBS). Outputs are the same; other sets refuse it"

// inputRGSWFlag registers --input-rgsw (encrypt, run).
func inputRGSWFlag(fs *flag.FlagSet, w *workflowFlags) {
	fs.BoolVar(&w.inputRGSW, "input-rgsw", false, inputRGSWHelp)
}

// inHelp is the --in flag's usage.
const inHelp = "input `name=value[,value...]` (repeat for each input; decimal, 0x hex, 0b binary, 0o octal; arrays comma-separated)"

// parityFailureFlag registers --parity-failure (compile, eval and run).
func (w *workflowFlags) parityFailureFlag(fs *flag.FlagSet) {
	fs.Float64Var(&w.parityFailure, "parity-failure", hcc.DefaultParityFailureLog2,
		"fhew: PARITY nodes are as wide as a predicted failure of at most 2^`LOG2` per bootstrap allows (LUTs keep 2^-40); "+
			"higher saves bootstraps, lower is safer. eval must get the value run or compile got to map the same way")
}

func (w *workflowFlags) backendFlags(fs *flag.FlagSet) {
	// The default is empty, not hcc.DefaultEngine, so that a compiled
	// program (.hcp) brings its own engine unless --backend names one.
	fs.StringVar(&w.backend, "backend", "", "encrypted `backend`: "+engineList()+"; default "+hcc.DefaultEngine+", or a compiled program's own")
	fs.StringVar(&w.params, "params", "", "parameter `set`; "+paramsHelp())
	fs.BoolVar(&w.insecure, "insecure", false, "allow the insecure Toy parameter sets (tests and demos only)")
}

// maxThreads is the most --threads accepted: 4 per CPU (at least 16),
// beyond which workers only add scratch memory (a typo of 100000 threads
// took 10 times the memory of 2 at a toy set).
func maxThreads() int { return hcc.MaxThreads() }

func threadsFlag(fs *flag.FlagSet, w *workflowFlags) {
	fs.IntVar(&w.threads, "threads", goruntime.GOMAXPROCS(0), "gates (FHEW bootstraps, BGV multiplications) run in parallel on `N` worker goroutines")
}

func batchFlag(fs *flag.FlagSet, w *workflowFlags) {
	fs.StringVar(&w.batch, "batch", "", "one input set per line of `FILE` (name=value ... as for --in; # comments); "+
		"fhew: all instances in one run; bgv: one per slot, as many ciphertext packs as the slots need. "+
		"The outputs are printed per instance, each as for one run, after a '# instance N' line")
}

// engineList describes the registered engines for --backend.
func engineList() string {
	var parts []string
	for _, name := range hcc.Engines() {
		e, _ := hcc.LookupEngine(name)
		parts = append(parts, name+" ("+e.Doc()+")")
	}
	return strings.Join(parts, " or ")
}

func paramsHelp() string {
	var parts []string
	for _, name := range hcc.Engines() {
		e, _ := hcc.LookupEngine(name)
		parts = append(parts, e.ParamsHelp())
	}
	return strings.Join(parts, "; ")
}

// checkCheap validates what needs no file and no computation: run before
// any keygen, compile or evaluation.
func (w *workflowFlags) checkCheap() error {
	if w.threads < 1 {
		return fmt.Errorf("--threads must be at least 1, got %d", w.threads)
	}
	if limit := maxThreads(); w.threads > limit {
		return fmt.Errorf("--threads %d is above the limit of %d (4 per CPU, at least 16): every worker holds its own scratch memory", w.threads, limit)
	}
	if !(w.parityFailure < 0) {
		return fmt.Errorf("--parity-failure %v: want log2 of a probability, below 0", w.parityFailure)
	}
	if w.instances < 0 {
		return fmt.Errorf("--instances must be at least 0, got %d", w.instances)
	}
	return nil
}

// target is the hcc.Target of the flags for engine and params (those of a
// key file when the command reads one).
func (w *workflowFlags) target(e *cmdEnv, engine, params string, insecure bool) hcc.Target {
	return hcc.Target{Engine: engine, Params: params, Insecure: insecure, Style: hcc.Style(e.style),
		ParityFailureLog2: w.parityFailure, Instances: w.instances}
}

// program compiles the command's circuit argument for t, or reads it when
// it is a compiled program (.hcp). The cheap checks run before the
// engine's passes: inputs, if set, on the loaded circuit (parsing --in or
// --batch), then check, if set, on the program's interface (ciphertexts
// against the circuit and key). The server side (eval, run) then compiles
// in full and reports on stderr; the client side (encrypt, decrypt) stops
// at the interface where the engine allows it (hcc.InterfaceOnly) and
// stays quiet.
func program(e *cmdEnv, t hcc.Target, server bool, check func(*hcc.Program) error) (*hcc.Program, error) {
	return programWithInputs(e, t, server, nil, check)
}

// programWithInputs is program with the inputs check first.
func programWithInputs(e *cmdEnv, t hcc.Target, server bool, inputs func(*ir.Circuit) error, check func(*hcc.Program) error) (*hcc.Program, error) {
	if inputs == nil {
		inputs = func(*ir.Circuit) error { return nil }
	}
	if check == nil {
		check = func(*hcc.Program) error { return nil }
	}
	path := e.args[0]
	if hcc.IsProgramFile(path) {
		if e.circuit != "" {
			return nil, fmt.Errorf("-circuit applies to source files; %s is a compiled program", path)
		}
		pt := hcc.Target{Insecure: t.Insecure}
		if t.Params == hcc.AutoParams {
			pt.Params = t.Params // hcc refuses a program for a set auto does not choose
		}
		p, err := hcc.Compile(hcc.File(path), pt)
		if err != nil {
			return nil, err
		}
		if pt := p.Target(); t.Engine != "" && t.Engine != pt.Engine || t.Params != "" && t.Params != hcc.AutoParams && t.Params != pt.Params {
			if e.keyFile != "" {
				return nil, fmt.Errorf("keys %s are %s/%s; %s needs %s/%s: make keys for it with hcc keygen --for %s",
					e.keyFile, t.Engine, t.Params, path, pt.Engine, pt.Params, path)
			}
			return nil, fmt.Errorf("%s is a program for %s/%s; --backend and --params say %s/%s", path, pt.Engine, pt.Params, t.Engine, t.Params)
		}
		e.warn(p.SecurityWarning())
		if err := inputs(p.Circuit()); err != nil {
			return nil, err
		}
		if err := check(p); err != nil {
			return nil, err
		}
		if server {
			e.warn(p.FailureWarning())
			fmt.Fprintf(e.stderr, "loaded %s (%s for %s/%s): %s\n", path, p.Name(), p.Target().Engine, p.Target().Params, p.Summary())
			if pf := parityBound(p.Target()); pf != parityBound(t) {
				fmt.Fprintf(e.stderr, "warning: --parity-failure %v ignored: %s was compiled with %v\n", parityBound(t), path, pf)
			}
		}
		return p, nil
	}
	t0 := time.Now()
	c, err := hcc.LoadCircuit(e.source(path), t.Style)
	if err != nil {
		return nil, err
	}
	if err := inputs(c); err != nil {
		return nil, err
	}
	src := hcc.FromCircuit(c)
	src.Name = path
	if t.Engine == "bgv" && t.Style == hcc.StyleDepth {
		// From the file again: BGV compiles both lowerings of the HDL
		// and keeps the lower AND-depth (hcc.Compile), which needs the source.
		src = e.source(path)
	}
	p, err := hcc.Compile(src, t, hcc.InterfaceOnly())
	if err != nil {
		return nil, err
	}
	e.warn(p.SecurityWarning())
	if err := check(p); err != nil {
		return nil, err
	}
	if !server {
		return p, nil
	}
	if !p.Evaluable() {
		if p, err = hcc.Compile(src, t); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(e.stderr, "compiled %s in %v: %s\n", p.Name(), time.Since(t0).Round(time.Millisecond), p.Summary())
	printChoice(e, p)
	e.warn(p.FailureWarning())
	return p, nil
}

// printChoice reports on stderr how --params auto chose the program's set:
// one line per candidate, then the chosen set and its predicted failure.
func printChoice(e *cmdEnv, p *hcc.Program) {
	pc := p.Choice()
	if pc == nil {
		return
	}
	for _, c := range pc.Candidates {
		fmt.Fprintf(e.stderr, "params auto: %s\n", c)
	}
	ch := pc.Chosen()
	what := "bootstraps"
	if ch.Wide {
		what = "circuit bootstraps"
	}
	// A wide-table set without tables still decrypts ciphertexts: its
	// failure is finite (the outputs' noise), so only -Inf is "nothing".
	if ch.Bootstraps == 0 && (!ch.Wide || math.IsInf(ch.FailureLog2, -1)) {
		fmt.Fprintf(e.stderr, "params auto: chose %s, no %s, nothing can fail\n", ch.Params, what)
		return
	}
	fmt.Fprintf(e.stderr, "params auto: chose %s, %d %s, predicted failure 2^%.1f per run (target 2^%.0f)\n",
		ch.Params, ch.Bootstraps, what, ch.FailureLog2, pc.MaxFailureLog2)
}

// parityBound is t's PARITY bound with the default filled in.
func parityBound(t hcc.Target) float64 {
	if t.ParityFailureLog2 == 0 {
		return hcc.DefaultParityFailureLog2
	}
	return t.ParityFailureLog2
}

// inputSets are the instances of --in or --batch.
type inputSets struct {
	values []hcc.Values
	batch  bool
}

// readInputs parses --in, or the --batch file (errors name the path given),
// for the inputs of c.
func readInputs(e *cmdEnv, c *ir.Circuit, batch string) (*inputSets, error) {
	if batch == "" {
		v, err := hcc.ParseInputs(c, e.ins...)
		if err != nil {
			return nil, err
		}
		return &inputSets{values: []hcc.Values{v}}, nil
	}
	if len(e.ins) > 0 {
		return nil, fmt.Errorf("--in and --batch exclude each other")
	}
	f, err := os.Open(batch)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := hcc.ParseBatch(c, f, batch)
	if err != nil {
		return nil, err
	}
	return &inputSets{values: b.Values, batch: true}, nil
}

// checkBatchReadable opens --batch early (before keygen and compile).
func checkBatchReadable(batch string) error {
	if batch == "" {
		return nil
	}
	f, err := os.Open(batch)
	if err != nil {
		return err
	}
	return f.Close()
}

// printOutputs prints decrypted outputs: for one input set like hcc sim;
// for a batch the same lines per instance, each after "# instance N". With
// want (the plaintext simulator's outputs) it then checks every instance.
func printOutputs(e *cmdEnv, p *hcc.Program, got []hcc.Values, batch bool, want []hcc.Values) error {
	var sb strings.Builder
	for j, v := range got {
		if batch {
			fmt.Fprintf(&sb, "# instance %d\n", j+1)
		}
		sb.WriteString(hcc.FormatOutputs(p.Circuit(), v))
	}
	if _, err := io.WriteString(e.stdout, sb.String()); err != nil {
		return err
	}
	if want == nil {
		return nil
	}
	for j := range got {
		if err := compareOutputs(p, got[j], want[j]); err != nil {
			if batch {
				return fmt.Errorf("instance %d: %w", j+1, err)
			}
			return err
		}
	}
	what := ""
	if batch {
		what = fmt.Sprintf(" of %d instances", len(got))
	}
	fmt.Fprintf(e.stderr, "check: all %d output bits%s match the plaintext simulator\n", p.Circuit().NumOutputBits(), what)
	return nil
}

// compareOutputs reports the first output element where the encrypted run
// (got) and the plaintext simulator (want) differ, and how many differ.
func compareOutputs(p *hcc.Program, got, want hcc.Values) error {
	return compareNamed(p, got, want, "encrypted result", "the plaintext simulator")
}

// compareNamed is compareOutputs with the two sides named gotName and
// wantName in the message.
func compareNamed(p *hcc.Program, got, want hcc.Values, gotName, wantName string) error {
	var first string
	bad := 0
	for _, bus := range p.Outputs() {
		for j, w := range want[bus.Name] {
			g := got[bus.Name][j]
			if g.Cmp(w) == 0 {
				continue
			}
			if bad == 0 {
				name := bus.Name
				if bus.Dims != nil {
					name = fmt.Sprintf("%s[%d]", name, j)
				}
				gd, gh := hcc.FormatValue(&bus, g)
				wd, wh := hcc.FormatValue(&bus, w)
				first = fmt.Sprintf("%s = %s (%s), %s says %s (%s)", name, gd, gh, wantName, wd, wh)
			}
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("check FAILED: %s differs from %s in %d output element(s): %s", gotName, wantName, bad, first)
	}
	return nil
}

// evaluate runs hcc.Eval with --threads, a progress line when stderr is a
// terminal, and interrupts cancelling the run, and reports the statistics.
// The inputs are released as the run goes (nothing reads them afterwards).
func evaluate(e *cmdEnv, w *workflowFlags, p *hcc.Program, sk *hcc.ServerKey, in *hcc.Ciphertexts) (*hcc.Ciphertexts, error) {
	opts := hcc.EvalOptions{Threads: w.threads, ReleaseInputs: true}
	endLine := func() {}
	if pw := progressTo(e.stderr); pw != nil {
		opts.Progress, endLine = progressLine(pw, p.EvalCostName())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out, st, err := hcc.Eval(ctx, p, sk, in, opts)
	endLine() // before the statistics, which would follow the line's last draw
	if err != nil {
		return nil, err
	}
	var shape []string
	if st.Slots > 1 {
		shape = append(shape, fmt.Sprintf("%d slots", st.Slots))
	}
	if st.Instances > 1 {
		shape = append(shape, fmt.Sprintf("%d instances in %d run(s)", st.Instances, st.Runs))
	}
	what := ""
	if len(shape) > 0 {
		what = " (" + strings.Join(shape, ", ") + ")"
	}
	fmt.Fprintf(e.stderr, "evaluated%s: %v\n", what, st.Stats)
	return out, nil
}

// progressTo is where evaluate draws its progress line: stderr when it is
// a terminal, else nowhere (nil). A variable for the tests.
var progressTo = func(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok && hccrt.IsTerminal(f) {
		return f
	}
	return nil
}

// progressLine draws "done/total NAME (pct%), rate, ETA" on w at most every
// 250 ms; stop ends the line (once: later calls do nothing).
func progressLine(w io.Writer, name string) (f func(done, total int), stop func()) {
	var mu sync.Mutex
	start, last := time.Now(), time.Time{}
	drawn := false
	f = func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if now := time.Now(); now.Sub(last) >= 250*time.Millisecond || done == total {
			last = now
			rate := float64(done) / now.Sub(start).Seconds()
			eta := "?"
			if rate > 0 {
				eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
			}
			fmt.Fprintf(w, "\r%d/%d %s (%.0f%%), %.1f/s, ETA %s   ", done, total, name, 100*float64(done)/float64(max(total, 1)), rate, eta)
			drawn = true
		}
	}
	stop = func() {
		mu.Lock()
		defer mu.Unlock()
		if drawn {
			fmt.Fprintln(w)
			drawn = false
		}
	}
	return f, stop
}

// readClientKey reads --key, printing the permission warning if any.
func readClientKey(e *cmdEnv, path string) (*hcc.ClientKey, error) {
	if path == "" {
		return nil, fmt.Errorf("missing --key DIR/secret.key")
	}
	ck, warning, err := hcc.ReadClientKeyFile(path)
	if err != nil {
		return nil, err
	}
	e.keyFile = path
	if warning != "" {
		fmt.Fprintf(e.stderr, "warning: %s\n", warning)
	}
	e.warn(ck.SecurityWarning())
	return ck, nil
}

// writeOutput writes data to -o atomically and returns its size in MB.
func writeOutput(path string, data []byte) (float64, error) {
	if err := hcc.WriteFile(path, data, 0o644); err != nil {
		return 0, err
	}
	return float64(len(data)) / 1e6, nil
}
