package hcc

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// Engine is one homomorphic scheme hcc can compile for and run on. The
// engines register themselves (engine_fhew.go, engine_bgv.go); a third
// engine is one new file that implements this interface and calls
// register in an init function. Programs, keys and ciphertexts record the
// engine's name, and every step looks the engine up by it.
type Engine interface {
	// Name is the engine's name in targets, files and the CLI's --backend.
	Name() string
	// Doc is a one-line description for help texts.
	Doc() string
	// ParamSets lists the parameter-set names the engine knows, sorted.
	ParamSets() []string
	// DefaultParams is the set a Target without Params gets when the engine
	// does not choose one per circuit, and the set GenerateKeysFor uses.
	DefaultParams() string
	// ParamsHelp describes how the engine picks and names parameter sets.
	ParamsHelp() string

	// scheme resolves a parameter-set name. Insecure (Toy) sets are
	// refused unless allowInsecure.
	scheme(name string, allowInsecure bool) (scheme, error)
	// compile runs the engine's passes on src for t (whose Params may be
	// empty: the engine then picks a set that fits the compiled circuit)
	// and returns the compiled circuit and the resolved scheme.
	compile(src *ir.Circuit, t Target, cfg *compileConfig) (*ir.Circuit, scheme, error)
	// validate checks that a compiled circuit (decoded from a file) can
	// run on s under t: every op and LUT is one the backend evaluates.
	validate(c *ir.Circuit, s scheme, t Target) error
	// summary describes what compiling changed ("376 -> 126 bootstraps ...").
	summary(src, compiled *ir.Circuit, s scheme, t Target) string
	// details describes the compiled program on its set in one line
	// (FHEW: predicted failure and PARITY width; BGV: slots, depth, level).
	details(p *Program) string
	// clientNeedsPasses reports whether encryption needs the compiled
	// circuit (BGV: the input level), so that InterfaceOnly cannot apply.
	clientNeedsPasses() bool
	// cost is the engine's price of a node under s and t (ir.StatsFor).
	cost(s scheme, t Target) ir.Cost
	// evalCostName names what Eval counts on s under t
	// (Program.EvalCostName): cost's name unless the run counts something
	// else than the price Stats reports.
	evalCostName(s scheme, t Target) string
	// settle is t for a program on s, once Compile has resolved the set:
	// fields that mean nothing on s are cleared (Program.Target).
	settle(s scheme, t Target) Target
}

// scheme is one engine's validated, immutable parameter set.
type scheme interface {
	name() string
	insecure() bool
	// warning is a one-line warning for a set below hcc's 128-bit target
	// that is still allowed without Target.Insecure, or "".
	warning() string
	// slots is the number of instances one ciphertext carries.
	slots() int
	// newKeys draws a fresh key pair.
	newKeys() (secretKey, serverKey, error)
	readSecretKey(body []byte) (secretKey, error)
	readServerKey(body []byte) (serverKey, error)
	// encode returns the encodings of cts, all of one size.
	encode(cts []backend.Ciphertext) (size int, out [][]byte, err error)
	decode(data []byte) (backend.Ciphertext, error)
}

// secretKey is an engine's client side.
type secretKey interface {
	marshal() ([]byte, error)
	// encrypt returns one ciphertext per input bit of p for one pack: on a
	// one-slot engine exactly one instance; on a packed engine slot j holds
	// instance j, or, with replicate, the single instance in every slot.
	encrypt(p *Program, pack [][]bool, replicate bool) ([]backend.Ciphertext, error)
	// decrypt returns the output bits of each instance in the pack; n == 0
	// is a replicated single instance, whose slots must agree.
	decrypt(cts []backend.Ciphertext, n int) ([][]bool, error)
}

// serverKey is an engine's evaluation side (no secret material).
type serverKey interface {
	marshal() ([]byte, error)
	// evaluator returns the backend that runs p's compiled circuit.
	evaluator(p *Program) (backend.Evaluator, error)
	// check verifies the inputs of one pack before any work (BGV: the
	// noise simulation on these very ciphertexts).
	check(p *Program, in []backend.Ciphertext) error
	// finish post-processes one pack's outputs (BGV: switch to level 0).
	finish(out []backend.Ciphertext) ([]backend.Ciphertext, error)
}

var (
	enginesMu sync.RWMutex
	engines   = map[string]Engine{}
)

// register adds an engine; called from the engines' init functions.
func register(e Engine) {
	enginesMu.Lock()
	defer enginesMu.Unlock()
	if _, dup := engines[e.Name()]; dup {
		panic("hcc: engine " + e.Name() + " registered twice")
	}
	engines[e.Name()] = e
}

// Engines returns the names of the registered engines, sorted.
func Engines() []string {
	enginesMu.RLock()
	defer enginesMu.RUnlock()
	out := make([]string, 0, len(engines))
	for name := range engines {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// LookupEngine returns the engine called name.
func LookupEngine(name string) (Engine, error) {
	enginesMu.RLock()
	e, ok := engines[name]
	enginesMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown backend %q (available: %s)", name, strings.Join(Engines(), ", "))
	}
	return e, nil
}

// DefaultEngine is the engine of a Target without Engine.
const DefaultEngine = "fhew"

// Style chooses how HDL arithmetic is lowered to gates.
type Style string

const (
	// StyleSize gives the fewest gates (ripple carry, array multiplier).
	StyleSize Style = "size"
	// StyleDepth gives the lowest AND-depth (parallel prefix, tree multiplier).
	StyleDepth Style = "depth"
)

// Target says what a program is compiled for. The zero value is FHEW at its
// default 128-bit set with the default options.
type Target struct {
	// Engine is the scheme: "fhew" (one bit per ciphertext, bootstrapped
	// gates) or "bgv" (one bit per slot, levelled); "" is DefaultEngine.
	Engine string
	// Params is the parameter-set name; "" lets the engine choose (FHEW: its
	// default set; BGV: the smallest secure set whose depth and slots fit
	// the compiled circuit and Instances). On FHEW, AutoParams ("auto")
	// chooses the cheapest 128-bit set for the circuit.
	Params string
	// Insecure allows the insecure Toy parameter sets. It is the one switch
	// for them: every other path refuses them.
	Insecure bool
	// Style lowers HDL arithmetic; "" is StyleSize.
	Style Style
	// ParityFailureLog2 bounds the predicted failure of one FHEW PARITY
	// bootstrap (log2, below 0), which sets how wide PARITY nodes may be;
	// 0 is fhew.DefaultParityFailureLog2. Wide-table sets have no PARITY
	// bootstraps: Compile clears it there.
	ParityFailureLog2 float64
	// LUTInputs bounds the FHEW LUT mapper's cuts; 0 is DefaultLUTInputs.
	LUTInputs int
	// Instances is the number of input sets a BGV program is sized for
	// (slots); 0 means 1.
	Instances int
}

// DefaultLUTInputs is the LUT mapper's cut size without Target.LUTInputs.
// The parameter set still decides which functions are allowed (LUTs within
// 2^-40 failure, PARITY nodes within the parity bound). Six inputs cost
// mapping time (aes_128: about 6 s instead of 1.5 s at 4) and save
// bootstraps (20012 instead of 21809 at STD128_LOWFAIL_T), a good trade for
// any circuit whose run takes longer than its compile.
const DefaultLUTInputs = 6

// normalized fills the defaults of t and validates its fields (the engine
// and parameter set are resolved by Compile).
func (t Target) normalized() (Target, error) {
	if t.Engine == "" {
		t.Engine = DefaultEngine
	}
	switch t.Style {
	case "":
		t.Style = StyleSize
	case StyleSize, StyleDepth:
	default:
		return t, fmt.Errorf("unknown style %q (want size or depth)", t.Style)
	}
	if t.LUTInputs == 0 {
		t.LUTInputs = DefaultLUTInputs
	}
	if t.LUTInputs < 2 || t.LUTInputs > ir.MaxLUTInputs {
		return t, fmt.Errorf("LUT inputs %d: want 2 to %d", t.LUTInputs, ir.MaxLUTInputs)
	}
	if t.ParityFailureLog2 > 0 || t.ParityFailureLog2 != t.ParityFailureLog2 {
		return t, fmt.Errorf("parity failure %v: want log2 of a probability, below 0", t.ParityFailureLog2)
	}
	if t.Instances < 0 {
		return t, fmt.Errorf("instances %d: want at least 0", t.Instances)
	}
	return t, nil
}

// insecureError is the refusal of a Toy set without Target.Insecure.
func insecureError(name string) error {
	return fmt.Errorf("parameter set %s is insecure (for tests only); set Target.Insecure (--insecure) to use it anyway", name)
}

// schemeCache holds resolved parameter sets by engine and name: building
// one (prime generation, NTT tables) takes up to a second, and sets are
// immutable.
var schemeCache sync.Map // engine+"/"+name -> scheme

// cachedScheme returns the scheme for key, building it with build once.
func cachedScheme(key string, build func() (scheme, error)) (scheme, error) {
	if s, ok := schemeCache.Load(key); ok {
		return s.(scheme), nil
	}
	s, err := build()
	if err != nil {
		return nil, err
	}
	actual, _ := schemeCache.LoadOrStore(key, s)
	return actual.(scheme), nil
}

// asCiphertexts returns an engine's concrete ciphertexts as the
// interface values the engine steps exchange (encrypt's and a plan's
// outputs): one loop instead of a copy in every engine.
func asCiphertexts[T any](xs []T) []backend.Ciphertext {
	out := make([]backend.Ciphertext, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// concreteCiphertexts returns cts as the engine's ciphertext type T (a
// server key's check or run, a decryption), or, at the first one of
// another type, the error "<what> i is <its type>, not <want>".
func concreteCiphertexts[T any](cts []backend.Ciphertext, what, want string) ([]T, error) {
	out := make([]T, len(cts))
	for i, ct := range cts {
		x, ok := ct.(T)
		if !ok {
			return nil, fmt.Errorf("%s %d is %T, not %s", what, i, ct, want)
		}
		out[i] = x
	}
	return out, nil
}
