package bgv

import (
	"fmt"
)

// Hoisted automorphisms (Halevi–Shoup, "Faster homomorphic linear
// transformations in HElib", 2018): several automorphisms of ONE
// ciphertext share the expensive half of key switching.
//
// Key switching c_1 ↦ (d_0, d_1) (keyswitch.go) first cuts c_1 into digits
// c_j = [c_1]_(Q_j) and raises each to Q_t·P (inverse transforms, base
// extension, forward transforms: about (t+1) + d·(t+1+k-α) transforms),
// then takes the inner product with the key and divides by P (2k + 2(t+1)
// transforms). κ_u of a raised digit is again a valid raised digit of
// κ_u(c_1): it is congruent to κ_u(c_1) modulo Q_j, and κ_u permutes the
// canonical embedding, so its size (and the key switch's added noise) is
// unchanged. In evaluation form κ_u is a cyclic shift of every row
// (galois.go), so one decomposition serves every κ_u: only the pointwise
// inner product (on shifted rows, no copy) and the division by P remain
// per automorphism.
//
// Linear maps go further (lazy modulus down): Σ_u c_u·κ_u(a) for public
// constants c_u accumulates c_u·⟨κ_u(digits), key_u⟩ over Q_t·P and divides
// by P once per map, so a map of k automorphisms costs one decomposition,
// k pointwise inner products and one division, against k full key
// switches. This is what the AES S-box's affine map (a linearized
// polynomial Σ c_j·x^(2^j)) needs.

// Hoisted is a ciphertext with its key-switching decomposition: a copy of
// (c_0, c_1) and the digits of c_1 raised to Q_t·P in evaluation form. Built
// by Evaluator.Hoist; reusable (its buffers are sized for the top level and
// kept). Not safe for concurrent use.
type Hoisted struct {
	level  int
	noise  NoiseEstimate
	c0, c1 *Poly
	digits [][][]uint64 // [digit][row of Q_t·P]
	// own[j][idx] is the storage of digit j's raised row for ringQP prime
	// idx; nil for the digit's own primes (those rows are c_1's).
	own  [][][]uint64
	tmp0 []uint64 // per-row inner product of one automorphism
	tmp1 []uint64
}

// NewHoisted allocates a decomposition buffer: two ciphertext components
// and, per digit, the rows of the primes outside it (about 60 MB at
// m = 65537).
func (pr *Params) NewHoisted() *Hoisted {
	r := pr.ringQ
	L := pr.MaxLevel()
	h := &Hoisted{level: -1, c0: r.NewPoly(L), c1: r.NewPoly(L)}
	nRows := len(pr.q) + len(pr.p)
	for _, dg := range pr.digits {
		rows := make([][]uint64, nRows)
		back := make([]uint64, (nRows-len(dg))*pr.n)
		in := map[int]bool{}
		for _, i := range dg {
			in[i] = true
		}
		k := 0
		for i := range rows {
			if !in[i] {
				rows[i] = back[k*pr.n : (k+1)*pr.n : (k+1)*pr.n]
				k++
			}
		}
		h.own = append(h.own, rows)
		h.digits = append(h.digits, make([][]uint64, nRows))
	}
	h.tmp0, h.tmp1 = make([]uint64, pr.n), make([]uint64, pr.n)
	return h
}

// Level returns the level of the hoisted ciphertext (-1 before Hoist).
func (h *Hoisted) Level() int { return h.level }

// State returns the hoisted ciphertext's level and noise estimate.
func (h *Hoisted) State() NoiseState { return NoiseState{Level: h.level, Noise: h.noise} }

// Hoist sets h to the decomposition of a switched down to level t (t <=
// a.Level(); a is not modified). It costs the first half of one key switch.
// Allocates nothing.
func (ev *Evaluator) Hoist(a *Ciphertext, t int, h *Hoisted, sc *Scratch) error {
	pr := ev.params
	if a.Degree() != 1 {
		return fmt.Errorf("bgv hoist: degree %d, want 1", a.Degree())
	}
	if t < 0 || t > a.Level() {
		return fmt.Errorf("bgv hoist: level %d outside [0, %d]", t, a.Level())
	}
	if len(h.own) != len(pr.digits) {
		return fmt.Errorf("bgv hoist: buffer from other parameters")
	}
	x := ev.operandAt(a, t, sc.opA, sc)
	h.level, h.noise = t, x.Noise
	h.c0.Rows, h.c1.Rows = h.c0.Rows[:cap(h.c0.Rows)][:t+1], h.c1.Rows[:cap(h.c1.Rows)][:t+1]
	h.c0.CopyFrom(x.Value[0])
	h.c1.CopyFrom(x.Value[1])
	lv := &pr.rns[t]
	r := pr.ringQP
	sc.job.c, sc.job.t = h.c1, t
	sc.forRows(pr, jobInverseQ, t+1)
	for j := range h.digits {
		clear(h.digits[j])
	}
	for _, dg := range lv.digits {
		rows := h.digits[dg.key][:len(lv.qp)]
		src, dst := sc.src[:len(dg.src)], sc.dst[:len(dg.dst)]
		for a, row := range dg.src {
			src[a] = sc.coeff[row]
			rows[row] = h.c1.Rows[row]
		}
		for a, row := range dg.dst {
			rows[row] = h.own[dg.key][lv.qp[row]]
			dst[a] = rows[row]
		}
		sc.convertRows(pr, dg.conv, src, dst)
		for _, row := range dg.dst {
			r.transforms[lv.qp[row]].ForwardRaderOrder(rows[row], rows[row], sc.tr)
		}
	}
	return nil
}

// shiftedMulAdd2 sets (or adds to, when add) out0, out1 the products of x
// cyclically shifted left by e with b0, b1: out[s] = x[(s+e) mod n]·b[s],
// i.e. κ_u(x)·b in evaluation form for u = g^e, without copying x.
func (md *modulus) shiftedMulAdd2(x []uint64, e int, b0, b1, out0, out1 []uint64, add bool) {
	n := len(out0)
	md.mulAdd2Vec(x[e:n], b0[:n-e], b1[:n-e], out0[:n-e], out1[:n-e], add)
	if e > 0 {
		md.mulAdd2Vec(x[:e], b0[n-e:n], b1[n-e:n], out0[n-e:n], out1[n-e:n], add)
	}
}

// autoKeyOf returns the key of κ_u and its shift e.
func (ev *Evaluator) autoKeyOf(u uint64) (*SwitchingKey, int, error) {
	pr := ev.params
	u %= uint64(pr.m)
	var key *SwitchingKey
	if ev.keys != nil {
		key, _ = ev.keys.AutoKey(u)
	}
	if key == nil {
		return nil, 0, fmt.Errorf("bgv automorphism: no key for κ_%d (generate it with GenAutoKey)", u)
	}
	e, err := pr.GaloisLog(u)
	return key, e, err
}

// innerRow sets tmp0, tmp1 to row i (of Q_t·P) of ⟨κ_u(digits), key⟩ with
// κ_u = shift by e.
func (pr *Params) innerRow(h *Hoisted, i, e int, key *SwitchingKey, tmp0, tmp1 []uint64) {
	lv := &pr.rns[h.level]
	idx := lv.qp[i]
	md := &pr.ringQP.moduli[idx]
	for j, dg := range lv.digits {
		md.shiftedMulAdd2(h.digits[dg.key][i], e, key.B[dg.key].Rows[idx], key.A[dg.key].Rows[idx], tmp0, tmp1, j > 0)
	}
}

// AutomorphismHoisted sets out = κ_u(a) for the hoisted a: the same value
// and noise estimate as Automorphism(a, u) at h's level, for the inner
// product and the division by P only. Allocates nothing.
func (ev *Evaluator) AutomorphismHoisted(h *Hoisted, u uint64, out *Ciphertext, sc *Scratch) error {
	pr := ev.params
	if h.level < 0 {
		return fmt.Errorf("bgv automorphism: empty hoisted ciphertext")
	}
	if u%uint64(pr.m) == 1 {
		setLevel(out, h.level)
		out.Value[0].CopyFrom(h.c0)
		out.Value[1].CopyFrom(h.c1)
		out.Noise = h.noise
		return nil
	}
	key, e, err := ev.autoKeyOf(u)
	if err != nil {
		return err
	}
	t := h.level
	nExt := len(pr.rns[t].qp)
	for i := 0; i < nExt; i++ {
		pr.innerRow(h, i, e, key, sc.acc0[i], sc.acc1[i])
	}
	setLevel(out, t)
	pr.divideByP(t, sc.acc0[:nExt], out.Value[0], sc)
	pr.divideByP(t, sc.acc1[:nExt], out.Value[1], sc)
	r := pr.ringQ
	for i := 0; i <= t; i++ {
		q := r.moduli[i].Q
		addShifted(out.Value[0].Rows[i], h.c0.Rows[i], e, q)
	}
	out.Noise = pr.keySwitchNoise(h.noise, t)
	return nil
}

// addShifted sets out[s] += x[(s+e) mod n] mod q.
func addShifted(out, x []uint64, e int, q uint64) {
	n := len(out)
	a, b := out[:n-e], x[e:n]
	for k := range a {
		a[k] = addMod(a[k], b[k], q)
	}
	a, b = out[n-e:], x[:e]
	for k := range a {
		a[k] = addMod(a[k], b[k], q)
	}
}

func addMod(a, b, q uint64) uint64 {
	s := a + b
	if s >= q {
		s -= q
	}
	return s
}
