package hcc

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
)

// fhewDefaultParams is the FHEW set without Target.Params: STD128_LOWFAIL_T,
// chosen by failure probability. Both it and STD128_T are 128-bit sets;
// STD128_T bootstraps ~25% faster but its AND fails with probability ~2^-84
// and the LUT mapper's functions up to the 2^-40 bound, so a mapped aes_128
// block (20810 bootstraps, 11099 of them LUTs) is predicted to fail with
// probability 2^-29. STD128_LOWFAIL_T keeps every function the mapper may
// emit below 2^-99 (up to six inputs, weights |w| <= 2,
// fhew.Params.SumFailureLog2) except wide PARITY nodes, which
// Target.ParityFailureLog2 bounds (2^-80 by default: a mapped aes_128
// block 2^-71.5, fhew.Params.CircuitFailure, in Program.Summary).
const fhewDefaultParams = "STD128_LOWFAIL_T"

// DefaultParityFailureLog2 is the FHEW PARITY bound of a Target whose
// ParityFailureLog2 is 0 (fhew.DefaultParityFailureLog2: 2^-80 per
// bootstrap, K = 36 on STD128_LOWFAIL_T).
const DefaultParityFailureLog2 = fhew.DefaultParityFailureLog2

func init() { register(fhewEngine{}) }

// fhewEngine is FHEW gate bootstrapping (backend/fhew): one bit per
// ciphertext, every gate, LUT and PARITY node one bootstrap.
type fhewEngine struct{}

func (fhewEngine) Name() string { return "fhew" }

func (fhewEngine) Doc() string {
	return "one bit per ciphertext, bootstrapped gates, LUTs and parities"
}

func (fhewEngine) ParamSets() []string {
	return slices.Sorted(slices.Values(append(fhew.Names(), append(wideNames(false), wideNames(true)...)...)))
}

func (fhewEngine) DefaultParams() string { return fhewDefaultParams }

// aboutBits finds the estimate in a BelowTarget set's Security statement.
var aboutBits = regexp.MustCompile(`about [0-9]+ bits`)

// ParamsHelp lists the 128-bit sets apart from the paper-reproduction
// sets below the target and from the insecure ones.
func (fhewEngine) ParamsHelp() string {
	var below []string
	for _, name := range fhew.ReproductionNames() {
		p, err := fhew.ParamsByName(name, false)
		if err != nil {
			below = append(below, name)
			continue
		}
		if m := aboutBits.FindString(p.Literal().Security); m != "" {
			name += " (" + m + ")"
		}
		below = append(below, name)
	}
	return "fhew: 128-bit " + fmt.Sprint(fhew.SecureNames()) + cmuxHelp() + ", default " + fhewDefaultParams +
		", or " + AutoParams + " (compile and run: the compiler maps the circuit on the 128-bit sets and keeps the cheapest within 2^-40 failure per run; the program records that set)" +
		"; below 128 bits, for paper reproduction only (a warning is printed): " + strings.Join(below, ", ") +
		"; insecure, with --insecure only: " + fmt.Sprint(fhew.InsecureNames()) + wideHelp()
}

// cmuxHelp names the 128-bit sets with the shared-select CMux gadget and
// what they are for: otherwise a user sees one more name in the list and
// no reason to pick it.
func cmuxHelp() string {
	var sets []string
	for _, name := range fhew.SecureNames() {
		if p, err := fhew.ParamsByName(name, false); err == nil && p.HasCMux() {
			sets = append(sets, name)
		}
	}
	if len(sets) == 0 {
		return ""
	}
	return " (" + strings.Join(sets, ", ") + ": a gate set plus the shared-select CMux gadget, for circuits whose MUXes share selects, " +
		"such as comparators, max/argmax, sorting and division; a larger evaluation key; docs/fhew-cmux.md)"
}

func (fhewEngine) scheme(name string, allowInsecure bool) (scheme, error) {
	switch {
	case name == "":
		name = fhewDefaultParams
	case name == AutoParams:
		return nil, autoError("a key or ciphertext")
	case isWideSet(name): // engine_fhew_wide.go
		return wideSchemeByName(name, allowInsecure)
	case !slices.Contains(fhew.Names(), name):
		return nil, fmt.Errorf("fhew: unknown parameter set %q (known: %v; compile and run also take %s: the cheapest 128-bit set for the circuit)", name, fhewEngine{}.ParamSets(), AutoParams)
	}
	s, err := cachedScheme("fhew/"+name, func() (scheme, error) {
		// Insecure sets are built here and refused below, by the one policy.
		p, err := fhew.ParamsByName(name, true)
		if err != nil {
			return nil, err
		}
		return &fhewScheme{p: p}, nil
	})
	if err != nil {
		return nil, err
	}
	if s.insecure() && !allowInsecure {
		return nil, insecureError(name)
	}
	return s, nil
}

// fhewKind is one kind of FHEW parameter set with the engine's steps that
// differ between kinds: the gate sets (fhewScheme, engine_fhew_gate.go:
// LUT mapping, one bootstrap per gate, LUT and PARITY node) and the
// wide-table sets (wideScheme, engine_fhew_wide.go: circuit bootstrapping
// and vertical packing of a wide plan). fhewEngine.scheme resolves a name
// to its kind and every step below calls the kind's method, so a kind's
// policy lives in its own file and a third kind is one more implementation.
type fhewKind interface {
	scheme
	// compile runs the kind's passes on src for t (Params resolved to this
	// set) and returns the compiled circuit.
	compile(src *ir.Circuit, t Target, cfg *compileConfig) (*ir.Circuit, error)
	// validate is Engine.validate on this set.
	validate(c *ir.Circuit, t Target) error
	// summary is Engine.summary on this set.
	summary(src, compiled *ir.Circuit, t Target) string
	// details is Engine.details of a program on this set.
	details(p *Program) string
	// cost is Engine.cost on this set.
	cost(t Target) ir.Cost
	// evalCostName is Engine.evalCostName on this set.
	evalCostName(t Target) string
	// settle is Engine.settle on this set.
	settle(t Target) Target
}

var (
	_ fhewKind = (*fhewScheme)(nil)
	_ fhewKind = (*wideScheme)(nil)
)

func (e fhewEngine) compile(c *ir.Circuit, t Target, cfg *compileConfig) (*ir.Circuit, scheme, error) {
	if t.Params == AutoParams {
		return e.compileAuto(c, t, cfg)
	}
	s, err := e.scheme(t.Params, t.Insecure)
	if err != nil {
		return nil, nil, err
	}
	d, err := s.(fhewKind).compile(c, t, cfg)
	if err != nil {
		return nil, nil, err
	}
	return d, s, nil
}

func (fhewEngine) validate(c *ir.Circuit, s scheme, t Target) error {
	return s.(fhewKind).validate(c, t)
}

func (fhewEngine) summary(src, d *ir.Circuit, s scheme, t Target) string {
	return s.(fhewKind).summary(src, d, t)
}

func (fhewEngine) details(p *Program) string { return p.scheme.(fhewKind).details(p) }

func (fhewEngine) clientNeedsPasses() bool { return false }

func (fhewEngine) cost(s scheme, t Target) ir.Cost { return s.(fhewKind).cost(t) }

func (fhewEngine) evalCostName(s scheme, t Target) string { return s.(fhewKind).evalCostName(t) }

func (fhewEngine) settle(s scheme, t Target) Target { return s.(fhewKind).settle(t) }
