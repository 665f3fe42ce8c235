package bgv

import (
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Evaluator computes on ciphertexts with the evaluation keys. It is
// immutable and safe for concurrent use; each goroutine passes its own
// Scratch to the kernels (Add, Mul, Automorphism, ...), which allocate
// nothing. The ...New wrappers allocate their result and scratch.
//
// Noise management (GHS 3.3): ciphertexts stay at their level after every
// operation; before a multiplication each operand is switched down only
// while that pays (Params.shouldDrop), then both are brought to the same
// level. A product that would not decrypt is refused with ErrNoiseBudget.
type Evaluator struct {
	params *Params
	keys   *EvaluationKeySet
	// wrapMasks[k] is RotateSlots' mask of the slots that wrap in a
	// rotation by k (WithSlotRotations); read-only after construction.
	wrapMasks map[int]*ConstPlaintext
}

// ErrNoiseBudget reports a multiplication whose estimated noise would exceed
// the modulus of the lowest usable level.
var ErrNoiseBudget = errors.New("bgv: noise budget exhausted")

// NewEvaluator returns an evaluator with the given keys (keys may be nil
// for additions only).
func NewEvaluator(pr *Params, keys *EvaluationKeySet) *Evaluator {
	return &Evaluator{params: pr, keys: keys}
}

// Params returns the evaluator's parameters.
func (ev *Evaluator) Params() *Params { return ev.params }

// NewCiphertext returns an empty degree-1 ciphertext (no rows yet, zero
// noise) for kernels, encryption and decoding to write: its rows are
// allocated by the first write, for that result's level (see Ciphertext).
func (pr *Params) NewCiphertext() *Ciphertext {
	return &Ciphertext{Value: []*Poly{{}, {}}, n: pr.n}
}

// setLevel sets the level of a degree-1 ciphertext, growing its rows if it
// has no room for level t (only ciphertexts from NewCiphertext can grow).
func setLevel(ct *Ciphertext, t int) {
	ct.Value = ct.Value[:2]
	for _, p := range ct.Value {
		if cap(p.Rows) <= t {
			p.grow(t+1, ct.n)
		}
		p.Rows = p.Rows[:t+1]
	}
}

// grow gives p room for rows rows of length n in one backing array,
// keeping the contents of its current rows.
func (p *Poly) grow(rows, n int) {
	if n == 0 {
		panic(fmt.Sprintf("bgv: internal error: ciphertext with room for %d rows needs %d", cap(p.Rows), rows))
	}
	backing := make([]uint64, rows*n)
	next := make([][]uint64, rows)
	for i := range next {
		next[i] = backing[i*n : (i+1)*n : (i+1)*n]
		if i < len(p.Rows) {
			copy(next[i], p.Rows[i])
		}
	}
	p.Rows = next[:len(p.Rows)]
}

// copyTo sets dst to a copy of the degree-1 ciphertext a.
func copyTo(a, dst *Ciphertext) {
	setLevel(dst, a.Level())
	dst.Value[0].CopyFrom(a.Value[0])
	dst.Value[1].CopyFrom(a.Value[1])
	dst.Noise = a.Noise
}

// DropLevel switches ct in place from level t to t-1 (GHS 3.2 in evaluation
// form, mod-2 corrected). Allocates nothing.
func (ev *Evaluator) DropLevel(ct *Ciphertext, sc *Scratch) error {
	t := ct.Level()
	if t == 0 {
		return fmt.Errorf("bgv: cannot switch below level 0")
	}
	for _, p := range ct.Value {
		ev.params.dropLevel(p, sc)
	}
	ct.Noise = ev.params.dropNoise(ct.Noise, t)
	return nil
}

// SwitchToLevel switches ct in place down to level t.
func (ev *Evaluator) SwitchToLevel(ct *Ciphertext, t int, sc *Scratch) error {
	if t < 0 || t > ct.Level() {
		return fmt.Errorf("bgv: cannot switch from level %d to %d", ct.Level(), t)
	}
	for ct.Level() > t {
		if err := ev.DropLevel(ct, sc); err != nil {
			return err
		}
	}
	return nil
}

// Add sets out = a + b for degree-1 ciphertexts; if the levels differ the
// higher one is switched down first (on a copy). out may alias a or b.
func (ev *Evaluator) Add(a, b, out *Ciphertext, sc *Scratch) error {
	if a.Degree() != 1 || b.Degree() != 1 {
		return fmt.Errorf("bgv add: degrees %d and %d, want 1", a.Degree(), b.Degree())
	}
	lv := ev.params.addState(a.State(), b.State()).Noise
	a, b = ev.sameLevel(a, b, sc)
	r := ev.params.ringQ
	setLevel(out, a.Level())
	r.Add(a.Value[0], b.Value[0], out.Value[0])
	r.Add(a.Value[1], b.Value[1], out.Value[1])
	out.Noise = lv
	return nil
}

// sameLevel returns a and b at their common (lower) level, switching a copy
// of the higher one (in sc.opA / sc.opB) down.
func (ev *Evaluator) sameLevel(a, b *Ciphertext, sc *Scratch) (*Ciphertext, *Ciphertext) {
	if a.Level() > b.Level() {
		copyTo(a, sc.opA)
		_ = ev.SwitchToLevel(sc.opA, b.Level(), sc) // b.Level() < a.Level(): cannot fail
		return sc.opA, b
	}
	if b.Level() > a.Level() {
		copyTo(b, sc.opB)
		_ = ev.SwitchToLevel(sc.opB, a.Level(), sc)
		return a, sc.opB
	}
	return a, b
}

// AddOne sets out = a + 1, the slot-wise complement of bits (NOT). The
// constant 1 is 1 in every slot and its evaluation form is all ones.
// out may alias a.
func (ev *Evaluator) AddOne(a, out *Ciphertext) {
	r := ev.params.ringQ
	setLevel(out, a.Level())
	for i, row := range out.Value[0].Rows {
		q := r.moduli[i].Q
		src := a.Value[0].Rows[i]
		for k := range row {
			row[k] = ring.AddMod64(src[k], 1, q)
		}
	}
	out.Value[1].CopyFrom(a.Value[1])
	out.Noise = addOneState(a.State()).Noise
}

// SetConstant sets out to the trivial (noiseless) encryption (μ, 0) of the
// bit v in every slot, at the top level.
func (ev *Evaluator) SetConstant(v bool, out *Ciphertext) {
	st := ev.params.constState(v)
	setLevel(out, st.Level)
	c := uint64(0)
	if v {
		c = 1
	}
	for _, row := range out.Value[0].Rows {
		for k := range row {
			row[k] = c
		}
	}
	for _, row := range out.Value[1].Rows {
		clear(row)
	}
	out.Noise = st.Noise
}

// AddNew returns a + b for ciphertexts of any degrees at the same level.
func (ev *Evaluator) AddNew(a, b *Ciphertext) (*Ciphertext, error) {
	if a.Level() != b.Level() {
		return nil, fmt.Errorf("bgv add: levels %d and %d differ", a.Level(), b.Level())
	}
	r := ev.params.ringQ
	if len(a.Value) < len(b.Value) {
		a, b = b, a
	}
	out := &Ciphertext{Value: make([]*Poly, len(a.Value)), Noise: addNoise(a.Noise, b.Noise)}
	for i := range out.Value {
		out.Value[i] = r.NewPoly(ev.params.MaxLevel())
		out.Value[i].Rows = out.Value[i].Rows[:a.Level()+1]
		if i < len(b.Value) {
			r.Add(a.Value[i], b.Value[i], out.Value[i])
		} else {
			out.Value[i].CopyFrom(a.Value[i])
		}
	}
	return out, nil
}

// TensorNew returns the tensor product of two degree-1 ciphertexts at the
// same level: (c_0·d_0, c_0·d_1 + c_1·d_0, c_1·d_1), valid for (1, s, s²),
// without relinearization or modulus switching.
func (ev *Evaluator) TensorNew(a, b *Ciphertext) (*Ciphertext, error) {
	if a.Level() != b.Level() {
		return nil, fmt.Errorf("bgv mul: levels %d and %d differ", a.Level(), b.Level())
	}
	if a.Degree() != 1 || b.Degree() != 1 {
		return nil, fmt.Errorf("bgv mul: degrees %d and %d, want 1 and 1", a.Degree(), b.Degree())
	}
	pr := ev.params
	r := pr.ringQ
	t := a.Level()
	out := &Ciphertext{Noise: pr.productNoise(a.Noise, b.Noise, a == b)}
	for range 3 {
		p := r.NewPoly(pr.MaxLevel())
		p.Rows = p.Rows[:t+1]
		out.Value = append(out.Value, p)
	}
	tensor(r, a, b, out.Value[0], out.Value[1], out.Value[2])
	return out, nil
}

// tensor sets (d0, d1, d2) to the tensor product of a and b (degree 1, same
// level), with Karatsuba's three products. The outputs must not alias the inputs.
func tensor(r *Ring, a, b *Ciphertext, d0, d1, d2 *Poly) {
	tensorRows(r, a, b, d0, d1, d2, 0, 1)
}

// tensorRows is tensor on rows lo, lo+step, ... (one worker's share).
func tensorRows(r *Ring, a, b *Ciphertext, d0, d1, d2 *Poly, lo, step int) {
	for i := lo; i < len(d1.Rows); i += step {
		md := &r.moduli[i]
		a0, a1, b0, b1 := a.Value[0].Rows[i][:r.n], a.Value[1].Rows[i][:r.n], b.Value[0].Rows[i][:r.n], b.Value[1].Rows[i][:r.n]
		z0, z2, z := d0.Rows[i][:r.n], d2.Rows[i][:r.n], d1.Rows[i][:r.n]
		k0 := tensorVec(a0, a1, b0, b1, z0, z, z2, &md.bar)
		for k := k0; k < len(z); k++ {
			z0[k] = md.MulMod(a0[k], b0[k])
			z2[k] = md.MulMod(a1[k], b1[k])
		}
		for k := k0; k < len(z); k++ {
			x := md.MulMod(ring.AddMod64(a0[k], a1[k], md.Q), ring.AddMod64(b0[k], b1[k], md.Q))
			z[k] = ring.SubMod64(ring.SubMod64(x, z0[k], md.Q), z2[k], md.Q)
		}
	}
}

// Mul sets out to a·b, relinearized (degree 1), after switching the operands
// down as the noise policy says (see Evaluator). out may alias a or b.
// Allocates nothing.
func (ev *Evaluator) Mul(a, b, out *Ciphertext, sc *Scratch) error {
	pr := ev.params
	if a.Degree() != 1 || b.Degree() != 1 {
		return fmt.Errorf("bgv mul: degrees %d and %d, want 1 and 1", a.Degree(), b.Degree())
	}
	if ev.keys == nil || ev.keys.Relin == nil {
		return fmt.Errorf("bgv mul: no relinearization key")
	}
	square := a == b
	st, err := pr.mulState(a.State(), b.State(), square)
	if err != nil {
		return err
	}
	t, noise := st.Level, st.Noise
	x := ev.operandAt(a, t, sc.opA, sc)
	y := x
	if !square {
		y = ev.operandAt(b, t, sc.opB, sc)
	}
	r := pr.ringQ
	sc.d0.Rows, sc.d1.Rows, sc.d2.Rows = sc.d0.Rows[:t+1], sc.d1.Rows[:t+1], sc.d2.Rows[:t+1]
	sc.job.ta, sc.job.tb = x, y
	sc.forRows(pr, jobTensor, t+1)
	setLevel(out, t)
	pr.keySwitch(sc.d2, ev.keys.Relin, out.Value[0], out.Value[1], sc)
	r.Add(out.Value[0], sc.d0, out.Value[0])
	r.Add(out.Value[1], sc.d1, out.Value[1])
	out.Noise = noise
	return nil
}

// operandAt returns a switched down to level t (a itself if already there,
// else a copy in tmp).
func (ev *Evaluator) operandAt(a *Ciphertext, t int, tmp *Ciphertext, sc *Scratch) *Ciphertext {
	if a.Level() == t {
		return a
	}
	copyTo(a, tmp)
	_ = ev.SwitchToLevel(tmp, t, sc) // t < a.Level() by mulPlan
	return tmp
}

// MulNew returns a·b relinearized (allocating result and scratch).
func (ev *Evaluator) MulNew(a, b *Ciphertext) (*Ciphertext, error) {
	out := ev.params.NewCiphertext()
	if err := ev.Mul(a, b, out, ev.NewScratch()); err != nil {
		return nil, err
	}
	return out, nil
}

// Relinearize sets out to the degree-1 form of the degree-2 ciphertext a.
// out must not alias a.
func (ev *Evaluator) Relinearize(a, out *Ciphertext, sc *Scratch) error {
	if a.Degree() != 2 {
		return fmt.Errorf("bgv relinearize: degree %d, want 2", a.Degree())
	}
	if ev.keys == nil || ev.keys.Relin == nil {
		return fmt.Errorf("bgv relinearize: no relinearization key")
	}
	pr := ev.params
	t := a.Level()
	setLevel(out, t)
	pr.keySwitch(a.Value[2], ev.keys.Relin, out.Value[0], out.Value[1], sc)
	pr.ringQ.Add(out.Value[0], a.Value[0], out.Value[0])
	pr.ringQ.Add(out.Value[1], a.Value[1], out.Value[1])
	out.Noise = pr.keySwitchNoise(a.Noise, t)
	return nil
}

// Automorphism sets out = κ_t(a) under the original key: both components are
// rotated in evaluation form, then κ_t(c_1) is switched from κ_t(s) to s.
// out may alias a. Allocates nothing.
func (ev *Evaluator) Automorphism(a *Ciphertext, t uint64, out *Ciphertext, sc *Scratch) error {
	pr := ev.params
	t %= uint64(pr.m)
	if a.Degree() != 1 {
		return fmt.Errorf("bgv automorphism: degree %d, want 1", a.Degree())
	}
	if t == 1 {
		if out != a {
			copyTo(a, out)
		}
		return nil
	}
	var key *SwitchingKey
	if ev.keys != nil {
		key, _ = ev.keys.AutoKey(t)
	}
	if key == nil {
		return fmt.Errorf("bgv automorphism: no key for κ_%d (generate it with GenAutoKey)", t)
	}
	level := a.Level()
	rot := sc.rotated
	setLevel(rot, level)
	for i := range 2 {
		if err := pr.ringQ.Automorphism(a.Value[i], t, rot.Value[i]); err != nil {
			return fmt.Errorf("bgv automorphism: %w", err)
		}
	}
	lv := pr.keySwitchNoise(a.Noise, level)
	setLevel(out, level)
	pr.keySwitch(rot.Value[1], key, out.Value[0], out.Value[1], sc)
	pr.ringQ.Add(out.Value[0], rot.Value[0], out.Value[0])
	out.Noise = lv
	return nil
}

// Rotate sets out to a with its slots rotated left by k (slot j receives
// slot j+k); see Encoder for the Frobenius twist on wrapped GF(2^d) values
// when gcd(d, ℓ) > 1 (bits always rotate exactly).
func (ev *Evaluator) Rotate(a *Ciphertext, k int, out *Ciphertext, sc *Scratch) error {
	return ev.Automorphism(a, ev.params.RotationElement(k), out, sc)
}

// Frobenius sets out to a with every slot raised to the power 2^j (κ_(2^j)).
func (ev *Evaluator) Frobenius(a *Ciphertext, j int, out *Ciphertext, sc *Scratch) error {
	pr := ev.params
	j %= pr.d
	if j < 0 {
		j += pr.d
	}
	return ev.Automorphism(a, ring.PowMod(2, uint64(j), uint64(pr.m)), out, sc)
}
