package hcc

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
)

// The FHEW engine's gate sets (backend/fhew): the compiler maps the
// circuit to gates, LUTs and PARITY nodes of one bootstrap each and, on
// CMux sets, to SEL and CMUX nodes (the shared-select gadget,
// docs/fhew-cmux.md); the runtime evaluates it node by node.
// fhewScheme is their fhewKind.

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

// fhewLUTTarget is the LUT capability programs for t map to on p. Compile, a
// decoded program's validation and the evaluator must agree, so all three
// derive it here.
func fhewLUTTarget(p fhew.Params, t Target) fhew.LUTTarget {
	pf := t.ParityFailureLog2
	if pf == 0 {
		pf = fhew.DefaultParityFailureLog2
	}
	return fhew.NewLUTTarget(p, fhew.DefaultLUTFailureLog2).WithParityFailure(pf)
}

// compile is fhewEngine.compile on a gate set: the LUT mapping pipeline
// for the set's LUT target.
func (s *fhewScheme) compile(c *ir.Circuit, t Target, cfg *compileConfig) (*ir.Circuit, error) {
	target := fhewLUTTarget(s.p, t)
	pipe := optimize.ForLUTs(newMemoLUTTarget(target), t.LUTInputs)
	if cfg.observe != nil {
		cfg.observe("input", fhewPassSummary(c, target))
		pipe.Observe = func(pass string, c *ir.Circuit) { cfg.observe(pass, fhewPassSummary(c, target)) }
	}
	d, err := pipe.Run(c)
	if err != nil {
		return nil, fmt.Errorf("compiling %q: %w", c.Name, err)
	}
	return d, nil
}

// fhewPassSummary is one line of hcc compile -v: what the FHEW backend
// would pay for c.
func fhewPassSummary(c *ir.Circuit, target fhew.LUTTarget) string {
	cost := target.Cost()
	st := c.StatsFor(cost)
	return fmt.Sprintf("%6d nodes %6d bootstraps (%d LUTs, %d PARITY%s), bootstrap depth %d, critical path %d nodes",
		st.Nodes, st.Costly, st.Count[ir.OpLUT], st.Count[ir.OpParity], selSummary(st), st.CostDepth, len(ir.CriticalPath(c, cost.Node)))
}

// validate is fhewEngine.validate on a gate set: every SEL and CMUX needs
// the CMux gadget, every LUT must be one bootstrap and every PARITY
// within the bound of t.
func (s *fhewScheme) validate(c *ir.Circuit, t Target) error {
	p := s.p
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

// summary is fhewEngine.summary on a gate set: the bootstraps before and
// after compiling and the predicted failure.
func (s *fhewScheme) summary(src, d *ir.Circuit, t Target) string {
	target := fhewLUTTarget(s.p, t)
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

// details is fhewEngine.details on a gate set: the predicted failure
// and the PARITY width the program's bound allows.
func (s *fhewScheme) details(p *Program) string {
	target := fhewLUTTarget(s.p, p.target)
	return fmt.Sprintf("%s on %s (PARITY up to %d inputs)", fhewPredictedFailure(target.Params(), p.circuit), p.target.Params, target.MaxParityInputs())
}

// cost is fhewEngine.cost on a gate set: the LUT target's bootstraps.
func (s *fhewScheme) cost(t Target) ir.Cost { return fhewLUTTarget(s.p, t).Cost() }

// evalCostName is fhewEngine.evalCostName on a gate set: Eval runs the
// bootstraps cost counts.
func (s *fhewScheme) evalCostName(t Target) string { return s.cost(t).Name }

// settle is fhewEngine.settle on a gate set: every field of t applies.
func (s *fhewScheme) settle(t Target) Target { return t }

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
