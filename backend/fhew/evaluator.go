package fhew

import (
	"fmt"
)

// Evaluator evaluates gates on gate-level ciphertexts with one evaluation
// key. It is immutable after NewEvaluator and safe to share between
// goroutines; every per-call buffer lives in a Scratch owned by the caller.
type Evaluator struct {
	params Params
	ek     *EvaluationKey
	// testPoly[h] is the coefficient-domain test polynomial of the decision
	// pattern h (bit 0 = output for sum ≡ 0 mod 4, bit 1 = for sum ≡ 1),
	// already in the "+Q/8 or -Q/8" form of section 2.5.
	testPoly [4][]uint32
	q8       uint32 // round(Q/8), added after extraction
}

// NewEvaluator checks that ek belongs to p and precomputes the test
// polynomials.
func NewEvaluator(p Params, ek *EvaluationKey) (*Evaluator, error) {
	if err := checkKey(p, ek); err != nil {
		return nil, err
	}
	ev := &Evaluator{params: p, ek: ek, q8: uint32((uint64(p.Q) + 4) / 8)}
	for h := 0; h < 4; h++ {
		ev.testPoly[h] = buildTestPoly(p.params, uint8(h), ev.q8)
	}
	return ev, nil
}

// Params returns the evaluator's parameter set.
func (ev *Evaluator) Params() Params { return ev.params }

// buildTestPoly returns f with constant term of f·Y^u equal to F(u), where
// F(u) = +Q/8 if the pattern says 1 for v = round(4u/M) and -Q/8 otherwise,
// for u in [0, M/2); F(u + M/2) = -F(u) follows from Y^(M/2) = -1 and is
// exactly the pattern's negacyclic constraint h(v+2) = ¬h(v).
// Coefficients: f_0 = F(0) and f_{N - u·2N/M} = -F(u) for u in [1, M/2).
func buildTestPoly(p *params, h uint8, q8 uint32) []uint32 {
	N, M := p.N, p.M
	f := make([]uint32, N)
	F := func(u int) uint32 {
		v := (u + M/8) / (M / 4) // 0, 1 or 2
		bit := (h >> uint(v&1)) & 1
		if v == 2 {
			bit = 1 - (h & 1)
		}
		if bit == 1 {
			return q8
		}
		return p.Q - q8
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
	accB, accA     []uint32 // accumulator, NTT domain
	cb, ca         []uint32 // coefficient-domain copies
	tmpB, tmpA     []uint32
	dig            [][]uint32 // 2·d_g digit polynomials
	lazyB, lazyA   []uint64
	lazyB2, lazyA2 []uint64 // GINX's second key product
	head, next     []int32  // index-set buckets (automorphism methods)
	alpha          []int32  // mod-switched α
	comb           []uint16 // gate's linear combination (β then α, dim N) at Q_ks
	ks             []uint16 // after key switching (β then α, dim n)
	ksAcc          []uint64 // key-switching accumulator (SWAR lanes)

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
		alpha: make([]int32, p.n),
		comb:  make([]uint16, N+1),
		ks:    make([]uint16, p.n+1),
		ksAcc: make([]uint64, ksWidth(p.n)/4),
	}
	sc.dig = make([][]uint32, 2*p.dg)
	for i := range sc.dig {
		sc.dig[i] = make([]uint32, N)
	}
	if p.lit.Method == MethodGINX {
		sc.lazyB2, sc.lazyA2 = make([]uint64, N), make([]uint64, N)
	} else {
		sc.head = make([]int32, p.M/2)
		sc.next = make([]int32, p.n)
	}
	return sc
}

// Automorphisms returns how many automorphisms the bootstraps run with this
// scratch have applied, and how many bootstraps that was (for Theorems 1-2).
func (sc *Scratch) Automorphisms() (automorphisms, bootstraps int) {
	return sc.automorphisms, sc.bootstraps
}

// combine sets sc.comb = Σ w_i·in_i + c·Q_ks/4 (mod Q_ks).
func combine(p *params, in []*Ciphertext, weights []int8, c int, sc *Scratch) {
	n := p.N
	acc := sc.comb[1 : n+1]
	clear(acc)
	b := uint16(c) * uint16(p.qks/4)
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
	beta := prepareBlindRotation(p, ev.ek.ksk, sc)

	// Accumulator: (ψ_t0(f·Y^β), 0), see blindrot.go.
	nt.MulByMonomial(ev.testPoly[h], beta<<p.yShift, sc.cb)
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

	// Sample extraction: β = b_0, α_0 = a_0, α_i = -a_{N-i}; then + Q/8 and
	// the mod switch Q -> Q_ks (round to nearest).
	nt.Inverse(sc.accB, sc.cb)
	nt.Inverse(sc.accA, sc.ca)
	Q := uint64(p.Q)
	scale := uint64(p.qks)
	m16 := uint16(mask)
	out.B = modSwitchQ(nt.AddMod(sc.cb[0], ev.q8), scale, Q) & m16
	oa := out.A[:N]
	oa[0] = modSwitchQ(sc.ca[0], scale, Q) & m16
	for i := 1; i < N; i++ {
		oa[i] = modSwitchQ(nt.NegMod(sc.ca[N-i]), scale, Q) & m16
	}
}

// prepareBlindRotation key-switches sc.comb to dimension n and rounds it to
// the blind-rotation modulus M: α into sc.alpha, rounded to the nearest odd
// residue for the automorphism methods (they need every α_i odd, eprint
// 2022/198 Section 5; mod 2q this costs the noise of rounding to q) or to
// the nearest residue (GINX); β rounded to nearest is returned.
func prepareBlindRotation(p *params, ksk *keySwitchKey, sc *Scratch) int {
	keySwitch(p, ksk, sc.comb, sc.ks, sc.ksAcc)
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

// Two-input gates (section 2.5): the sum of the inputs at spacing Q_ks/4
// is 0, 1 or 2 (XOR and XNOR double it so that it is 0 or 2), and the
// pattern gives the output for sums ≡ 0 and ≡ 1 mod 4.
var (
	specAND  = gateSpec{[]int8{1, 1}, 0b00}
	specNAND = gateSpec{[]int8{1, 1}, 0b11}
	specOR   = gateSpec{[]int8{1, 1}, 0b10}
	specNOR  = gateSpec{[]int8{1, 1}, 0b01}
	specXOR  = gateSpec{[]int8{2, 2}, 0b00}
	specXNOR = gateSpec{[]int8{2, 2}, 0b01}
	// a AND NOT b: a - b is 0, 1, 3 (≡ -1) or 0.
	specANDNY = gateSpec{[]int8{1, -1}, 0b10}
	// MAJORITY: sum 0..3 at spacing Q_ks/4; outputs 0,0,1,1 satisfy
	// h(v+2) = ¬h(v), so one bootstrap suffices at the standard encoding.
	specMAJ = gateSpec{[]int8{1, 1, 1}, 0b00}
)

func (ev *Evaluator) gate(spec gateSpec, in []*Ciphertext, out *Ciphertext, sc *Scratch) {
	combine(ev.params.params, in, spec.weights, 0, sc)
	ev.bootstrap(spec.pattern, out, sc)
}

// AND sets out = a AND b (one bootstrap). out may alias an input.
func (ev *Evaluator) AND(a, b, out *Ciphertext, sc *Scratch) {
	ev.gate2(specAND, a, b, out, sc)
}

// NAND sets out = NOT(a AND b) (one bootstrap).
func (ev *Evaluator) NAND(a, b, out *Ciphertext, sc *Scratch) {
	ev.gate2(specNAND, a, b, out, sc)
}

// OR sets out = a OR b (one bootstrap).
func (ev *Evaluator) OR(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(specOR, a, b, out, sc) }

// NOR sets out = NOT(a OR b) (one bootstrap).
func (ev *Evaluator) NOR(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(specNOR, a, b, out, sc) }

// XOR sets out = a XOR b (one bootstrap on 2a + 2b, as OpenFHE's XOR).
func (ev *Evaluator) XOR(a, b, out *Ciphertext, sc *Scratch) { ev.gate2(specXOR, a, b, out, sc) }

// XNOR sets out = NOT(a XOR b) (one bootstrap).
func (ev *Evaluator) XNOR(a, b, out *Ciphertext, sc *Scratch) {
	ev.gate2(specXNOR, a, b, out, sc)
}

// ANDNY sets out = a AND NOT b (one bootstrap on a - b).
func (ev *Evaluator) ANDNY(a, b, out *Ciphertext, sc *Scratch) {
	ev.gate2(specANDNY, a, b, out, sc)
}

// MAJORITY sets out = MAJ(a, b, c) (one bootstrap on a + b + c).
func (ev *Evaluator) MAJORITY(a, b, c, out *Ciphertext, sc *Scratch) {
	sc3 := [3]*Ciphertext{a, b, c}
	ev.gate(specMAJ, sc3[:], out, sc)
}

// gate2 avoids building a slice on the heap for two inputs.
func (ev *Evaluator) gate2(spec gateSpec, a, b, out *Ciphertext, sc *Scratch) {
	in := [2]*Ciphertext{a, b}
	ev.gate(spec, in[:], out, sc)
}

// Not sets out = NOT a (free: Q_ks/4 - a).
func (ev *Evaluator) Not(a, out *Ciphertext) { Not(ev.params, a, out) }

// MUX sets out = s ? a : b in two bootstraps: t = s AND a, then
// out = t OR (NOT s AND b) as one bootstrap on 2t - s + b, whose sums
// 0,1,3,0 (t = 0) and 1,2 (t = 1) follow the pattern 0,1,1,0.
// out may alias an input.
func (ev *Evaluator) MUX(s, a, b, out *Ciphertext, sc *Scratch, tmp *Ciphertext) {
	ev.gate2(specAND, s, a, tmp, sc)
	in := [3]*Ciphertext{tmp, s, b}
	ev.gate(gateSpec{[]int8{2, -1, 1}, 0b10}, in[:], out, sc)
}

// Bootstrap refreshes a ciphertext (identity through one bootstrap).
func (ev *Evaluator) Bootstrap(a, out *Ciphertext, sc *Scratch) {
	in := [1]*Ciphertext{a}
	ev.gate(gateSpec{[]int8{1}, 0b10}, in[:], out, sc)
}

// EvalLUT evaluates the k-input Boolean function table (bit i = f(i), input
// 0 the least significant bit of i, as ir.LUT) in one bootstrap on the
// weighted sum Σ w_i·x_i, if the parameter set supports it (see
// Params.CanEvalLUT); otherwise it returns an error and leaves out alone.
func (ev *Evaluator) EvalLUT(table uint64, in []*Ciphertext, out *Ciphertext, sc *Scratch) error {
	e := findLUTEntry(table, len(in))
	if !e.ok {
		return fmt.Errorf("fhew: %d-input table %#x needs more than one bootstrap", len(in), table)
	}
	ev.gate(e.gs, in, out, sc)
	return nil
}

// AND3 sets out = a AND b AND c in two bootstraps (t = a AND b, then
// t AND c). One bootstrap cannot do it at spacing Q_ks/4: the sums 0 and 2
// would both need output 0, against h(v+2) = ¬h(v). tmp is a caller-given
// temporary; out may alias an input.
func (ev *Evaluator) AND3(a, b, c, out *Ciphertext, sc *Scratch, tmp *Ciphertext) {
	ev.gate2(specAND, a, b, tmp, sc)
	ev.gate2(specAND, tmp, c, out, sc)
}

// OR3 sets out = a OR b OR c in two bootstraps (see AND3).
func (ev *Evaluator) OR3(a, b, c, out *Ciphertext, sc *Scratch, tmp *Ciphertext) {
	ev.gate2(specOR, a, b, tmp, sc)
	ev.gate2(specOR, tmp, c, out, sc)
}
