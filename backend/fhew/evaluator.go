package fhew

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// Evaluator evaluates gates on gate-level ciphertexts with one evaluation
// key. It is immutable after NewEvaluator and safe to share between
// goroutines; every per-call buffer lives in a Scratch owned by the caller.
type Evaluator struct {
	params Params
	ek     *EvaluationKey
	// testPoly[h] is the coefficient-domain test polynomial of the decision
	// pattern h (bit v = output for sum ≡ v mod P, v < P/2), in the
	// "+Q/2P or -Q/2P" form of section 2.5 (Q/8 at P = 4).
	testPoly [][]uint32
	qOut     uint32 // round(Q/2P), added after extraction
	// gates[g] is how gate g is evaluated (gatePlan): the Evaluator's own
	// gate methods and the Backend's workers share it.
	gates [numGates]lutPlan
	multi *multiTables   // v0 and the factors t_h of multi-output bootstraps (multilut.go)
	cbs   *cbs.Evaluator // the CMux gadget's circuit bootstrapping (cmux.go); nil without it
}

// NewEvaluator checks that ek belongs to p and precomputes the test
// polynomials.
func NewEvaluator(p Params, ek *EvaluationKey) (*Evaluator, error) {
	if err := checkKey(p, ek); err != nil {
		return nil, err
	}
	P := uint64(p.slots)
	ev := &Evaluator{params: p, ek: ek, qOut: uint32((uint64(p.Q) + P) / (2 * P))}
	ev.testPoly = make([][]uint32, 1<<(p.slots/2))
	for h := range ev.testPoly {
		ev.testPoly[h] = buildTestPoly(p.params, uint8(h), ev.qOut)
	}
	ev.multi = newMultiTables(p.params, ev.qOut)
	for g := range gateTables {
		pl := gatePlan(p, g)
		if !pl.ok {
			return nil, fmt.Errorf("fhew: internal error: gate %d has no one-bootstrap form at P = %d", g, p.slots)
		}
		ev.gates[g] = *pl
	}
	if p.HasCMux() {
		if ek.cbs == nil || len(ek.lower) != p.lowerKeyLen() {
			return nil, fmt.Errorf("fhew: evaluation key for %q lacks the CMux gadget's keys", p.lit.Name)
		}
		c, err := cbs.NewEvaluator(ek.cbs)
		if err != nil {
			return nil, fmt.Errorf("fhew: CMux evaluator: %w", err)
		}
		ev.cbs = c
	}
	return ev, nil
}

// Params returns the evaluator's parameter set.
func (ev *Evaluator) Params() Params { return ev.params }

// buildTestPoly returns f with constant term of f·Y^u equal to F(u), where
// F(u) = +Q/2P if the pattern says 1 for v = round(P·u/M) and -Q/2P
// otherwise, for u in [0, M/2); F(u + M/2) = -F(u) follows from
// Y^(M/2) = -1 and is exactly the pattern's negacyclic constraint
// h(v + P/2) = ¬h(v). Coefficients: f_0 = F(0) and f_{N - u·2N/M} = -F(u)
// for u in [1, M/2).
func buildTestPoly(p *params, h uint8, amp uint32) []uint32 {
	N, M, P := p.N, p.M, p.slots
	f := make([]uint32, N)
	F := func(u int) uint32 {
		v := (u + M/(2*P)) / (M / P) // 0..P/2
		var bit uint8
		if v == P/2 {
			bit = 1 - (h & 1)
		} else {
			bit = (h >> uint(v)) & 1
		}
		if bit == 1 {
			return amp
		}
		return p.Q - amp
	}
	f[0] = F(0)
	for u := 1; u < M/2; u++ {
		f[N-(u<<p.yShift)] = p.ntt.NegMod(F(u))
	}
	return f
}

// Scratch holds every buffer one bootstrap needs. Size it once per
// goroutine with NewScratch; it must not be shared between goroutines.
type Scratch struct {
	accB, accA   []uint32 // accumulator, NTT domain
	cb, ca       []uint32 // coefficient-domain copies
	tmpB, tmpA   []uint32
	dig          [][]uint32 // 2·d_g digit polynomials
	lazyB, lazyA []uint64
	head, next   []int32      // index-set buckets (automorphism methods)
	alpha        []int32      // mod-switched α
	comb         []uint16     // gate's linear combination (β then α, dim N) at Q_ks
	ks           []uint16     // after key switching (β then α, dim n)
	ksAcc        []uint64     // key-switching accumulator (SWAR lanes)
	ksOffs       []int32      // key-switching row offsets
	ksSink       uint64       // keySwitch's read-ahead loads end here (unused)
	multiAcc     []uint32     // EvalMultiLUT's accumulator, allocated on first use
	cmux         *cmuxScratch // Select and CMux (cmux.go); nil on sets without the gadget

	automorphisms int
	bootstraps    int
}

// NewScratch allocates a scratch space for p.
func NewScratch(p Params) *Scratch {
	N := p.N
	sc := &Scratch{
		accB: make([]uint32, N), accA: make([]uint32, N),
		cb: make([]uint32, N), ca: make([]uint32, N),
		tmpB: make([]uint32, N), tmpA: make([]uint32, N),
		lazyB: make([]uint64, N), lazyA: make([]uint64, N),
		alpha:  make([]int32, p.n),
		comb:   make([]uint16, N+1),
		ks:     make([]uint16, p.n+1),
		ksAcc:  make([]uint64, ksWidth(p.n)/4),
		ksOffs: make([]int32, N*p.dks),
	}
	// The digit polynomials are one slab, back to back: ring.DotRows' pure-Go
	// loops for N = 1024 reach them all from one pointer.
	slab := make([]uint32, 2*p.dg*N)
	sc.dig = make([][]uint32, 2*p.dg)
	for i := range sc.dig {
		sc.dig[i] = slab[i*N : (i+1)*N : (i+1)*N]
	}
	if p.lit.Method != MethodGINX {
		sc.head = make([]int32, p.M/2)
		sc.next = make([]int32, p.n)
	}
	if p.HasCMux() {
		sc.cmux = newCMuxScratch(p.params)
	}
	return sc
}

// Automorphisms returns how many automorphisms the bootstraps run with this
// scratch have applied, and how many bootstraps that was (for Theorems 1-2).
func (sc *Scratch) Automorphisms() (automorphisms, bootstraps int) {
	return sc.automorphisms, sc.bootstraps
}

// combine sets sc.comb = Σ w_i·in_i + c·Q_ks/P (mod Q_ks).
func combine(p *params, in []*Ciphertext, weights []int8, c int, sc *Scratch) {
	n := p.N
	acc := sc.comb[1 : n+1]
	clear(acc)
	b := uint16(c) * uint16(p.qks/p.slots)
	for k, ct := range in {
		w := uint16(int16(weights[k]))
		if w == 0 {
			continue
		}
		b += w * ct.B
		a := ct.A[:n]
		for i := range acc {
			acc[i] += w * a[i]
		}
	}
	sc.comb[0] = b
}

// bootstrap evaluates the decision pattern h on the phase of sc.comb and
// writes a fresh gate-level ciphertext to out: key switch N -> n (section
// 2.4), mod switch Q_ks -> M (round to odd for the automorphism methods),
// blind rotation, sample extraction (section 2.4.3), +Q/8, mod switch
// Q -> Q_ks.
func (ev *Evaluator) bootstrap(h uint8, out *Ciphertext, sc *Scratch) {
	p := ev.params.params
	nt := p.ntt
	N := p.N
	mask := uint32(p.qks - 1)
	ev.blindRotate(ev.testPoly[h], sc)

	// Sample extraction: β = b_0, α_0 = a_0, α_i = -a_{N-i}; then + Q/2P and
	// the mod switch Q -> Q_ks (round to nearest).
	nt.Inverse(sc.accB, sc.cb)
	nt.Inverse(sc.accA, sc.ca)
	Q := uint64(p.Q)
	scale := uint64(p.qks)
	m16 := uint16(mask)
	out.B = modSwitchQ(nt.AddMod(sc.cb[0], ev.qOut), scale, Q) & m16
	oa := out.A[:N]
	oa[0] = modSwitchQ(sc.ca[0], scale, Q) & m16
	for i := 1; i < N; i++ {
		oa[i] = modSwitchQ(nt.NegMod(sc.ca[N-i]), scale, Q) & m16
	}
}

// blindRotate key-switches and rounds sc.comb and leaves RLWE(f·Y^phase) in
// sc.accB, sc.accA (NTT domain): the part of a bootstrap before sample
// extraction, shared with the multi-output bootstrap (multilut.go).
func (ev *Evaluator) blindRotate(f []uint32, sc *Scratch) {
	p := ev.params.params
	nt := p.ntt
	beta := prepareBlindRotation(p, ev.ek.ksk, sc)

	// Accumulator: (ψ_t0(f·Y^β), 0), see blindrot.go.
	nt.MulByMonomial(f, beta<<p.yShift, sc.cb)
	if p.lit.Method.usesAutomorphisms() {
		nt.AutomorphismCoeffWithIndex(sc.cb, p.autoIndexInit, sc.ca)
		nt.Forward(sc.ca, sc.accB)
	} else {
		nt.Forward(sc.cb, sc.accB)
	}
	clear(sc.accA)

	switch p.lit.Method {
	case MethodSigned:
		blindRotateSigned(p, ev.ek, sc.alpha, sc)
	case MethodLMKCDEY:
		blindRotateLMKCDEY(p, ev.ek, sc.alpha, sc)
	default:
		blindRotateGINX(p, ev.ek, sc.alpha, sc)
	}
	sc.bootstraps++
}

// prepareBlindRotation key-switches sc.comb to dimension n and rounds it to
// the blind-rotation modulus M: α into sc.alpha, rounded to the nearest odd
// residue for the automorphism methods (they need every α_i odd, eprint
// 2022/198 Section 5; mod 2q this costs the noise of rounding to q) or to
// the nearest residue (GINX); β rounded to nearest is returned.
func prepareBlindRotation(p *params, ksk *keySwitchKey, sc *Scratch) int {
	keySwitch(p, ksk, sc.comb, sc.ks, sc.ksAcc, sc.ksOffs, &sc.ksSink)
	return roundToBR(p, sc)
}

// roundToBR is prepareBlindRotation's rounding of sc.ks.
func roundToBR(p *params, sc *Scratch) int {
	mask := uint32(p.qks - 1)
	shift := uint(p.logQKS) - uint(trailingZeros(p.M))
	mMask := int32(p.M - 1)
	if p.lit.Method.usesAutomorphisms() {
		for i, a := range sc.ks[1 : p.n+1] {
			x := uint32(a) & mask
			sc.alpha[i] = (int32(x>>(shift+1))<<1 | 1) & mMask
		}
	} else {
		for i, a := range sc.ks[1 : p.n+1] {
			x := uint32(a) & mask
			sc.alpha[i] = int32((x+(1<<(shift-1)))>>shift) & mMask
		}
	}
	return int((uint32(sc.ks[0])&mask+1<<(shift-1))>>shift) & (p.M - 1)
}

// modSwitchQ returns round(x·Q_ks/Q) (mod Q_ks is left to the uint16 wrap
// and the key switch's final mask).
func modSwitchQ(x uint32, qks, Q uint64) uint16 { return uint16((uint64(x)*qks + Q/2) / Q) }

func trailingZeros(x int) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// gateSpec is a gate as a linear combination and a decision pattern.
type gateSpec struct {
	weights []int8
	pattern uint8
}

// Gates by truth table (bit i = f(i), input 0 the least significant bit);
// NewEvaluator finds each one's evaluation plan for the set's P (findPlan).
// At P = 4 (section 2.5) AND is 1,1 with outputs 0,0,1 for sums 0,1,2,
// MAJORITY 1,1,1, and XOR is 2,2 (OpenFHE's 2(ct1 + ct2)) with the phase
// shifted by half a slot, which doubles its margin to 1/4 (parity.go); at
// P = 8 XOR is 4,4 with margin 1/4 too, AND3/OR3 are 1,1,1.
const (
	gateAND = iota
	gateNAND
	gateOR
	gateNOR
	gateXOR
	gateXNOR
	gateANDNY
	gateMAJ
	gateID
	gateMUX2 // MUX second stage: t OR (NOT s AND b) on (t, s, b) with t = s AND a
	numGates
)

var gateTables = [numGates]struct {
	table uint64
	k     int
}{
	gateAND: {0b1000, 2}, gateNAND: {0b0111, 2}, gateOR: {0b1110, 2}, gateNOR: {0b0001, 2},
	gateXOR: {0b0110, 2}, gateXNOR: {0b1001, 2}, gateANDNY: {0b0010, 2},
	gateMAJ: {0b11101000, 3}, gateID: {0b10, 1},
	// Index t + 2s + 4b, output t | (!s & b); t = 1 never meets s = 0, and
	// those two don't-care entries (indices 1 and 5) are set to 1 and 0,
	// the values 2t - s + b gives at P = 4.
	gateMUX2: {0b10011010, 3},
}

// gate2 avoids building a slice on the heap for two inputs.
func (ev *Evaluator) gate2(g int, a, b, out *Ciphertext, sc *Scratch) {
	in := [2]*Ciphertext{a, b}
	ev.evalPlan(&ev.gates[g], in[:], out, sc)
}

// AND sets out = a AND b (one bootstrap). out may alias an input.
func (ev *Evaluator) AND(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(gateAND, a, b, out, sc) }

// NAND sets out = NOT(a AND b) (one bootstrap).
func (ev *Evaluator) NAND(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(gateNAND, a, b, out, sc) }

// OR sets out = a OR b (one bootstrap).
func (ev *Evaluator) OR(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(gateOR, a, b, out, sc) }

// NOR sets out = NOT(a OR b) (one bootstrap).
func (ev *Evaluator) NOR(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(gateNOR, a, b, out, sc) }

// XOR sets out = a XOR b (one bootstrap on 2a + 2b at P = 4, as OpenFHE,
// but with margin 1/4 instead of 1/8: a parity, see EvalParity).
func (ev *Evaluator) XOR(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(gateXOR, a, b, out, sc) }

// XNOR sets out = NOT(a XOR b) (one bootstrap).
func (ev *Evaluator) XNOR(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(gateXNOR, a, b, out, sc) }

// ANDNY sets out = a AND NOT b (one bootstrap on a - b).
func (ev *Evaluator) ANDNY(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(gateANDNY, a, b, out, sc) }

// MAJORITY sets out = MAJ(a, b, c) (one bootstrap on a + b + c: at P = 4
// the outputs 0,0,1,1 for sums 0..3 satisfy h(v+2) = ¬h(v)).
func (ev *Evaluator) MAJORITY(a, b, c, out *Ciphertext, sc *Scratch) {
	in := [3]*Ciphertext{a, b, c}
	ev.evalPlan(&ev.gates[gateMAJ], in[:], out, sc)
}

// Not sets out = NOT a (free: Q_ks/P - a).
func (ev *Evaluator) Not(a, out *Ciphertext) { Not(ev.params, a, out) }

// MUX sets out = s ? a : b in two bootstraps: t = s AND a, then
// out = t OR (NOT s AND b) in one bootstrap on a weighted sum of (t, s, b)
// (at P = 4: 2t - s + b, whose sums 0,1,3,0 for t = 0 and 1,2 for t = 1
// follow the pattern 0,1,1,0). tmp is a caller-given temporary; out may
// alias an input.
func (ev *Evaluator) MUX(s, a, b, out *Ciphertext, sc *Scratch, tmp *Ciphertext) {
	// Index s + 2a + 4b: 0b11011000 is s ? a : b.
	if pl := findPlan(ev.params.slots, muxTable, 3); pl.ok {
		in := [3]*Ciphertext{s, a, b}
		ev.evalPlan(&pl, in[:], out, sc)
		return
	}
	ev.gate2(gateAND, s, a, tmp, sc)
	in := [3]*Ciphertext{tmp, s, b}
	ev.evalPlan(&ev.gates[gateMUX2], in[:], out, sc)
}

// Bootstrap refreshes a ciphertext (identity through one bootstrap).
func (ev *Evaluator) Bootstrap(a, out *Ciphertext, sc *Scratch) {
	in := [1]*Ciphertext{a}
	ev.evalPlan(&ev.gates[gateID], in[:], out, sc)
}

// EvalLUT evaluates the k-input Boolean function table (bit i = f(i), input
// 0 the least significant bit of i, as ir.LUT) in one bootstrap on the
// weighted sum Σ w_i·x_i with the weights Params.CanEvalLUT reports (and
// the wide margin when they are all even, parity.go), if the parameter set
// supports it; otherwise it returns an error and leaves out alone. It
// accepts any supported table whatever its failure probability: bounding
// that is LUTTarget's job.
func (ev *Evaluator) EvalLUT(table uint64, in []*Ciphertext, out *Ciphertext, sc *Scratch) error {
	pl := findPlan(ev.params.slots, table, len(in))
	if !pl.ok {
		return fmt.Errorf("fhew: %d-input table %#x needs more than one bootstrap", len(in), table)
	}
	ev.evalPlan(&pl, in, out, sc)
	return nil
}

// AND3 sets out = a AND b AND c: one bootstrap on a + b + c when the set
// has P = 8, otherwise two (t = a AND b, then t AND c; at P = 4 the sums 0
// and 2 would both need output 0, against h(v+2) = ¬h(v)). tmp is a
// caller-given temporary; out may alias an input.
func (ev *Evaluator) AND3(a, b, c, out *Ciphertext, sc *Scratch, tmp *Ciphertext) {
	ev.threeInput(0b10000000, gateAND, a, b, c, out, sc, tmp)
}

// OR3 sets out = a OR b OR c (see AND3).
func (ev *Evaluator) OR3(a, b, c, out *Ciphertext, sc *Scratch, tmp *Ciphertext) {
	ev.threeInput(0b11111110, gateOR, a, b, c, out, sc, tmp)
}

func (ev *Evaluator) threeInput(table uint64, g2 int, a, b, c, out *Ciphertext, sc *Scratch, tmp *Ciphertext) {
	if pl := findPlan(ev.params.slots, table, 3); pl.ok {
		in := [3]*Ciphertext{a, b, c}
		ev.evalPlan(&pl, in[:], out, sc)
		return
	}
	ev.gate2(g2, a, b, tmp, sc)
	ev.gate2(g2, tmp, c, out, sc)
}
