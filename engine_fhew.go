package hcc

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
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

// lutTarget is the LUT capability programs for t map to on p. Compile, a
// decoded program's validation and the evaluator must agree, so all three
// derive it here.
func fhewLUTTarget(p fhew.Params, t Target) fhew.LUTTarget {
	pf := t.ParityFailureLog2
	if pf == 0 {
		pf = fhew.DefaultParityFailureLog2
	}
	return fhew.NewLUTTarget(p, fhew.DefaultLUTFailureLog2).WithParityFailure(pf)
}

func (e fhewEngine) compile(c *ir.Circuit, t Target, cfg *compileConfig) (*ir.Circuit, scheme, error) {
	if t.Params == AutoParams {
		return e.compileAuto(c, t, cfg)
	}
	if isWideSet(t.Params) {
		return compileWide(c, t, cfg)
	}
	s, err := e.scheme(t.Params, t.Insecure)
	if err != nil {
		return nil, nil, err
	}
	target := fhewLUTTarget(s.(*fhewScheme).p, t)
	pipe := optimize.ForLUTs(newMemoLUTTarget(target), t.LUTInputs)
	if cfg.observe != nil {
		cfg.observe("input", fhewPassSummary(c, target))
		pipe.Observe = func(pass string, c *ir.Circuit) { cfg.observe(pass, fhewPassSummary(c, target)) }
	}
	d, err := pipe.Run(c)
	if err != nil {
		return nil, nil, fmt.Errorf("compiling %q: %w", c.Name, err)
	}
	return d, s, nil
}

// fhewPassSummary is one line of hcc compile -v: what the FHEW backend
// would pay for c.
func fhewPassSummary(c *ir.Circuit, target fhew.LUTTarget) string {
	cost := target.Cost()
	st := c.StatsFor(cost)
	return fmt.Sprintf("%6d nodes %6d bootstraps (%d LUTs, %d PARITY%s), bootstrap depth %d, critical path %d nodes",
		st.Nodes, st.Costly, st.Count[ir.OpLUT], st.Count[ir.OpParity], selSummary(st), st.CostDepth, len(ir.CriticalPath(c, cost.Node)))
}

func (fhewEngine) validate(c *ir.Circuit, s scheme, t Target) error {
	if ws, ok := s.(*wideScheme); ok {
		return ws.validate(c)
	}
	p := s.(*fhewScheme).p
	target := fhewLUTTarget(p, t)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch {
		case (n.Op == ir.OpSel || n.Op == ir.OpCMux) && !p.HasCMux():
			// Refused here, not at the first SEL of an encrypted run: a
			// program file is checked before keys or ciphertexts are made.
			return fmt.Errorf("node %d: %v needs a set with the CMux gadget (such as STD128_T_CMUX), and %s has none: compile the source for %s again", i, n.Op, s.name(), s.name())
		case n.Op == ir.OpLUT && !target.CanEvalLUT(n.Table, len(n.In)):
			return fmt.Errorf("node %d: LUT%d %#x is not one bootstrap on %s", i, len(n.In), n.Table, s.name())
		case n.Op == ir.OpParity && len(n.In) > target.MaxParityInputs():
			return fmt.Errorf("node %d: PARITY of %d inputs exceeds the %d that %s allows at 2^%v", i, len(n.In), target.MaxParityInputs(), s.name(), target.ParityFailureLog2())
		}
	}
	return nil
}

// selSummary is ", n SEL, m CMUX" for a circuit that
// uses the CMux gadget, else "": the bootstrap count alone does not show
// that a SEL is priced at several bootstraps and a CMUX at none.
func selSummary(st ir.Stats) string {
	if st.Count[ir.OpSel] == 0 && st.Count[ir.OpCMux] == 0 {
		return ""
	}
	return fmt.Sprintf(", %d SEL, %d CMUX", st.Count[ir.OpSel], st.Count[ir.OpCMux])
}

func (fhewEngine) summary(src, d *ir.Circuit, s scheme, t Target) string {
	if ws, ok := s.(*wideScheme); ok {
		return ws.summary(d)
	}
	target := fhewLUTTarget(s.(*fhewScheme).p, t)
	st := d.StatsFor(target.Cost())
	return fmt.Sprintf("%d -> %d bootstraps (%d LUTs, %d PARITY%s), bootstrap depth %d, %s",
		target.CircuitBootstraps(src), st.Costly, st.Count[ir.OpLUT], st.Count[ir.OpParity], selSummary(st), st.CostDepth,
		fhewPredictedFailure(target.Params(), d))
}

// fhewPredictedFailure describes the noise model's failure probability of
// one run of d (fhew.Params.CircuitFailure: a union bound over its
// bootstraps), the number a user weighs against the parity bound.
func fhewPredictedFailure(p fhew.Params, d *ir.Circuit) string {
	cf, err := p.CircuitFailure(d)
	switch {
	case err != nil:
		return fmt.Sprintf("predicted failure unknown (%v)", err)
	case cf.Bootstraps == 0:
		return "no bootstraps, no failure"
	}
	return fmt.Sprintf("predicted failure 2^%.1f per run", cf.Log2Failure)
}

func (fhewEngine) details(p *Program) string {
	if ws, ok := p.scheme.(*wideScheme); ok {
		return ws.details(p)
	}
	target := fhewLUTTarget(p.scheme.(*fhewScheme).p, p.target)
	return fmt.Sprintf("%s on %s (PARITY up to %d inputs)", fhewPredictedFailure(target.Params(), p.circuit), p.target.Params, target.MaxParityInputs())
}

func (fhewEngine) clientNeedsPasses() bool { return false }

func (fhewEngine) cost(s scheme, t Target) ir.Cost {
	if _, ok := s.(*wideScheme); ok {
		return wideCost()
	}
	return fhewLUTTarget(s.(*fhewScheme).p, t).Cost()
}

// fhewScheme is a validated FHEW parameter set.
type fhewScheme struct{ p fhew.Params }

func (s *fhewScheme) name() string   { return s.p.Name() }
func (s *fhewScheme) insecure() bool { return s.p.Literal().Insecure }

// failureLog2 is fhew.Params.CircuitFailure of c (ok false on an error
// or without bootstraps).
func (s *fhewScheme) failureLog2(c *ir.Circuit) (float64, bool) {
	cf, err := s.p.CircuitFailure(c)
	if err != nil || cf.Bootstraps == 0 {
		return 0, false
	}
	return cf.Log2Failure, true
}

// warning states a BelowTarget set's security (kept for paper
// reproduction, never chosen by default).
func (s *fhewScheme) warning() string {
	if l := s.p.Literal(); l.BelowTarget {
		return fmt.Sprintf("parameter set %s is below the 128-bit security target (%s)", s.name(), l.Security)
	}
	return ""
}
func (s *fhewScheme) slots() int { return 1 }

func (s *fhewScheme) newKeys() (secretKey, serverKey, error) {
	sk, err := fhew.NewSecretKey(s.p)
	if err != nil {
		return nil, nil, err
	}
	ek, err := fhew.GenEvaluationKey(sk)
	if err != nil {
		return nil, nil, err
	}
	return &fhewSecret{s: s, sk: sk}, &fhewServer{s: s, ek: ek}, nil
}

func (s *fhewScheme) readSecretKey(body []byte) (secretKey, error) {
	sk, err := fhew.ReadSecretKey(s.p, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return &fhewSecret{s: s, sk: sk}, nil
}

func (s *fhewScheme) readServerKey(body []byte) (serverKey, error) {
	ek, err := fhew.UnmarshalEvaluationKey(s.p, body)
	if err != nil {
		return nil, err
	}
	return &fhewServer{s: s, ek: ek}, nil
}

func (s *fhewScheme) encode(cts []backend.Ciphertext) (int, [][]byte, error) {
	size := fhew.CiphertextSize(s.p)
	out := make([][]byte, len(cts))
	for i, ct := range cts {
		x, ok := ct.(*fhew.Ciphertext)
		if !ok {
			return 0, nil, fmt.Errorf("internal error: ciphertext %d is %T, not FHEW", i, ct)
		}
		out[i] = fhew.AppendCiphertext(make([]byte, 0, size), x)
	}
	return size, out, nil
}

func (s *fhewScheme) decode(data []byte) (backend.Ciphertext, error) {
	return fhew.DecodeCiphertext(s.p, data)
}

// fhewSecret is an FHEW secret key.
type fhewSecret struct {
	s  *fhewScheme
	sk *fhew.SecretKey
}

func (k *fhewSecret) marshal() ([]byte, error) { return k.sk.MarshalBinary() }

func (k *fhewSecret) encrypt(p *Program, pack [][]bool, _ bool) ([]backend.Ciphertext, error) {
	if err := p.checkInsecure("encrypt"); err != nil {
		return nil, err
	}
	if len(pack) != 1 {
		return nil, fmt.Errorf("internal error: an FHEW pack holds one instance, not %d", len(pack))
	}
	enc, err := fhew.NewEncryptor(k.sk)
	if err != nil {
		return nil, err
	}
	return enc.EncryptBits(pack[0]), nil
}

func (k *fhewSecret) decrypt(cts []backend.Ciphertext, n int) ([][]bool, error) {
	if n > 1 {
		return nil, fmt.Errorf("an FHEW pack holds one instance, not %d", n)
	}
	bits, err := k.sk.DecryptBits(cts)
	if err != nil {
		return nil, err
	}
	return [][]bool{bits}, nil
}

// fhewServer is an FHEW evaluation key; its evaluator (precomputed tables)
// is built on first use and shared by every Eval.
type fhewServer struct {
	s    *fhewScheme
	ek   *fhew.EvaluationKey
	once sync.Once
	ev   *fhew.Evaluator
	err  error
}

func (k *fhewServer) marshal() ([]byte, error) { return k.ek.MarshalBinary() }

func (k *fhewServer) evaluator(p *Program) (backend.Evaluator, error) {
	k.once.Do(func() { k.ev, k.err = fhew.NewEvaluator(k.s.p, k.ek) })
	if k.err != nil {
		return nil, k.err
	}
	return fhew.NewBackendWithTarget(k.ev, fhewLUTTarget(k.s.p, p.target)), nil
}

func (k *fhewServer) check(*Program, []backend.Ciphertext) error { return nil }

func (k *fhewServer) finish(out []backend.Ciphertext) ([]backend.Ciphertext, error) { return out, nil }
