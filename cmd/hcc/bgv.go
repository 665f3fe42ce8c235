package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/cmd/hcc/load"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
)

// bgvAutoSets are the secure sets tried, in order, when --backend bgv has no
// --params: the first whose depth and slot count suffice is used.
var bgvAutoSets = []string{"M8191", "M65537"}

// bgvParamsHelp is the --params help for BGV (the cost of each default;
// times measured on 2 cores).
const bgvParamsHelp = "bgv: run picks the smallest secure set whose AND-depth and slots suffice, " +
	"M8191 (depth 6, 630 slots, ~25 ms per AND, eval key 1.4 MB, <= 330 KB per input bit) else " +
	"M65537 (depth 41, 2048 slots, 0.14-0.7 s per AND as the depth grows, eval key ~94 MB, <= 23 MB per input bit; " +
	"adder64 at depth 7 takes ~1 min); inputs are encrypted at the lowest level at which the noise model's simulation of the circuit succeeds; " +
	"keygen, which sees no circuit, takes M65537"

// bgvParams resolves --params for BGV. An empty name picks the first of
// bgvAutoSets that fits depth and instances (the last one if none does,
// so that CheckCircuit reports the shortfall).
func (w *workflowFlags) bgvParams(depth, instances int) (*bgv.Params, error) {
	if w.params != "" {
		lit, err := bgv.LiteralByName(w.params)
		if err != nil {
			return nil, err
		}
		if lit.Insecure && !w.insecure {
			return nil, fmt.Errorf("parameter set %s is insecure (for tests only); pass --insecure to use it anyway", w.params)
		}
		lit.AllowInsecure = w.insecure
		return bgv.NewParams(lit)
	}
	var pr *bgv.Params
	for _, name := range bgvAutoSets {
		lit, err := bgv.LiteralByName(name)
		if err != nil {
			return nil, err
		}
		if pr, err = bgv.NewParams(lit); err != nil {
			return nil, err
		}
		if pr.DepthAvailable() >= depth && pr.Slots() >= instances {
			break
		}
	}
	return pr, nil
}

// bgvParamsByName builds a key file's parameter set (insecure sets allowed:
// the choice was made at keygen).
func bgvParamsByName(name string) (*bgv.Params, error) {
	lit, err := bgv.LiteralByName(name)
	if err != nil {
		return nil, err
	}
	lit.AllowInsecure = true
	return bgv.NewParams(lit)
}

// compileBGV is the BGV compile pipeline, optimize.ForDepth (fold, and-depth,
// dce): the executor's cost and noise grow with the AND-depth. Deterministic,
// interface unchanged. It reports the depth before and after on stderr.
func compileBGV(e *cmdEnv, c *ir.Circuit) (*ir.Circuit, error) {
	t0 := time.Now()
	d, err := optimize.ForDepth().Run(c)
	if err != nil {
		return nil, fmt.Errorf("compiling %q: %w", c.Name, err)
	}
	if d.NumInputBits() != c.NumInputBits() || d.NumOutputBits() != c.NumOutputBits() {
		return nil, fmt.Errorf("internal error: compiling %q changed its interface", c.Name)
	}
	fmt.Fprintf(e.stderr, "compiled %s in %v: AND-depth %d -> %d (%d multiplications)\n", c.Name,
		time.Since(t0).Round(time.Millisecond), bgv.CircuitDepth(c), bgv.CircuitDepth(d), mulCount(d))
	return d, nil
}

// mulCount is the number of ciphertext multiplications the executor runs on c.
func mulCount(c *ir.Circuit) int {
	n := 0
	for i := range c.Nodes {
		n += bgv.MulCost(c.Nodes[i].Op)
	}
	return n
}

// bgvClient is the secret-key side of BGV: encoding, encryption, decryption.
type bgvClient struct {
	bgvCodec
	enc *bgv.Encoder
	sk  *bgv.SecretKey
}

func newBGVClient(pr *bgv.Params, sk *bgv.SecretKey) (*bgvClient, error) {
	enc, err := bgv.NewEncoder(pr)
	if err != nil {
		return nil, err
	}
	return &bgvClient{bgvCodec: bgvCodec{pr}, enc: enc, sk: sk}, nil
}

// encrypt encrypts the inputs of c (encryptAt) at the lowest level at which
// the noise model's simulation of c, compiled as eval compiles it
// (compileBGV is deterministic), succeeds; a circuit the chain cannot carry
// fails here already, with the node and the primes it needs.
func (k *bgvClient) encrypt(c *ir.Circuit, instances [][]bool) ([]backend.Ciphertext, error) {
	d, err := optimize.ForDepth().Run(c)
	if err != nil {
		return nil, fmt.Errorf("compiling %q: %w", c.Name, err)
	}
	level, err := k.pr.LevelForCircuit(d)
	if err != nil {
		return nil, err
	}
	return k.encryptAt(instances, level)
}

// encryptAt returns one ciphertext per input bit at level: slot j of
// ciphertext i holds bit i of instance j. One instance is replicated into
// every slot; with several, slots past the last instance hold zeros. Bits
// are encrypted in parallel (one sampler and encryptor per goroutine).
func (k *bgvClient) encryptAt(instances [][]bool, level int) ([]backend.Ciphertext, error) {
	slots := k.pr.Slots()
	if len(instances) > slots {
		return nil, fmt.Errorf("%d instances do not fit in the %d slots of %s", len(instances), slots, k.pr.Name())
	}
	out := make([]backend.Ciphertext, len(instances[0]))
	err := parallelFor(len(out), func() func(i int) error {
		en := bgv.NewSymmetricEncryptor(k.pr, k.sk, bgv.NewSampler())
		bits := make([]uint8, slots)
		pt := bgv.NewBinaryPoly(k.pr.N())
		return func(i int) error {
			for j := range bits {
				src := instances[0]
				if len(instances) > 1 {
					if j >= len(instances) {
						bits[j] = 0
						continue
					}
					src = instances[j]
				}
				bits[j] = 0
				if src[i] {
					bits[j] = 1
				}
			}
			if err := k.enc.EncodeBits(bits, pt); err != nil {
				return err
			}
			ct, err := en.EncryptAtLevel(pt, level)
			out[i] = ct
			return err
		}
	})
	return out, err
}

// decrypt returns the output bits of each instance: with instances == 0 (one
// input set replicated) the one set the slots agree on, an error if any slot
// differs; else the first instances slots.
func (k *bgvClient) decrypt(cts []backend.Ciphertext, instances int) ([][]bool, error) {
	n := max(instances, 1)
	out := make([][]bool, n)
	for j := range out {
		out[j] = make([]bool, len(cts))
	}
	err := parallelFor(len(cts), func() func(i int) error {
		de := bgv.NewDecryptor(k.pr, k.sk)
		sc := k.pr.NewScratch()
		pt := bgv.NewBinaryPoly(k.pr.N())
		slots := make([]uint8, k.pr.Slots())
		return func(i int) error {
			ct, ok := cts[i].(*bgv.Ciphertext)
			if !ok {
				return fmt.Errorf("output bit %d: not a BGV ciphertext (%T)", i, cts[i])
			}
			de.DecryptTo(ct, pt, sc)
			if err := k.enc.DecodeBits(pt, slots); err != nil {
				return fmt.Errorf("output bit %d: %w", i, err)
			}
			if instances == 0 {
				for j, b := range slots {
					if b != slots[0] {
						return fmt.Errorf("output bit %d differs between slot 0 and slot %d, which hold the same inputs (noise overflow?)", i, j)
					}
				}
			}
			for j := range out {
				out[j][i] = slots[j] == 1 // distinct i per call: no two goroutines write one element
			}
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// parallelFor calls f(i) for i in [0, n) on GOMAXPROCS goroutines, each
// with the state newWorker builds, and returns the first error (by index).
func parallelFor(n int, newWorker func() func(i int) error) error {
	workers := min(goruntime.GOMAXPROCS(0), n)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newWorker()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = f(i)
			}
		}()
	}
	wg.Wait()
	return firstError(errs)
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// instanceSet is the inputs of a BGV run: one set from --in (replicated
// into every slot) or one per line of a --batch file.
type instanceSet struct {
	values []ir.Values
	lines  []int // --batch line of each instance
	batch  bool
}

// count is the instance count a ciphertext file records: 0 for one input
// set replicated into every slot.
func (s *instanceSet) count() int {
	if !s.batch {
		return 0
	}
	return len(s.values)
}

// packed returns the input bits of every instance.
func (s *instanceSet) packed(c *ir.Circuit) ([][]bool, error) {
	out := make([][]bool, len(s.values))
	for j, v := range s.values {
		bits, err := c.PackInputs(v)
		if err != nil {
			return nil, s.at(j, err)
		}
		out[j] = bits
	}
	return out, nil
}

func (s *instanceSet) at(j int, err error) error {
	if !s.batch {
		return err
	}
	return fmt.Errorf("instance %d (line %d): %w", j+1, s.lines[j], err)
}

// readInstances parses --in, or --batch FILE: one instance per line, the
// same name=value[,value...] assignments as --in separated by spaces; blank
// lines and lines starting with # are skipped.
func readInstances(e *cmdEnv, c *ir.Circuit, batch string) (*instanceSet, error) {
	if batch == "" {
		v, err := load.Inputs(c, e.ins)
		if err != nil {
			return nil, err
		}
		return &instanceSet{values: []ir.Values{v}}, nil
	}
	if len(e.ins) > 0 {
		return nil, fmt.Errorf("--in and --batch exclude each other")
	}
	f, err := os.Open(batch)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &instanceSet{batch: true}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		v, err := load.Inputs(c, strings.Fields(text))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", filepath.Base(batch), line, err)
		}
		s.values = append(s.values, v)
		s.lines = append(s.lines, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(batch), err)
	}
	if len(s.values) == 0 {
		return nil, fmt.Errorf("%s holds no instances", filepath.Base(batch))
	}
	return s, nil
}

// batchLine renders one instance's outputs as name=value assignments
// (decimal, arrays comma-separated), the syntax of a --batch line.
func batchLine(c *ir.Circuit, vals ir.Values) string {
	parts := make([]string, len(c.Outputs))
	for i := range c.Outputs {
		bus := &c.Outputs[i]
		elems := make([]string, len(vals[bus.Name]))
		for j, v := range vals[bus.Name] {
			elems[j], _ = load.FormatValue(bus, v)
		}
		parts[i] = bus.Name + "=" + strings.Join(elems, ",")
	}
	return strings.Join(parts, " ") + "\n"
}

// printInstances prints decrypted outputs: like hcc sim for one replicated
// input set, else one batchLine per instance. With want (the plaintext
// simulator's outputs) it then checks every instance.
func printInstances(e *cmdEnv, c *ir.Circuit, got [][]bool, batch bool, want []ir.Values) error {
	var sb strings.Builder
	vals := make([]ir.Values, len(got))
	for j, bits := range got {
		vals[j] = c.UnpackOutputs(bits)
		if batch {
			sb.WriteString(batchLine(c, vals[j]))
		} else {
			sb.WriteString(load.Outputs(c, vals[j]))
		}
	}
	if _, err := io.WriteString(e.stdout, sb.String()); err != nil {
		return err
	}
	if want == nil {
		return nil
	}
	for j := range vals {
		if err := compareOutputs(c, vals[j], want[j]); err != nil {
			if batch {
				return fmt.Errorf("instance %d: %w", j+1, err)
			}
			return err
		}
	}
	what := ""
	if batch {
		what = fmt.Sprintf(" of %d instances", len(vals))
	}
	fmt.Fprintf(e.stderr, "check: all %d output bits%s match the plaintext simulator\n", c.NumOutputBits(), what)
	return nil
}
