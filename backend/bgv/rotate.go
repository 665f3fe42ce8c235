package bgv

import (
	"fmt"
	"slices"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Exact rotations of GF(2^d) slots when one automorphism is not enough
// (HElib's "bad dimension": gcd(d, ℓ) > 1, e.g. m = 17, 257, 65537).
//
// Derivation. Slot j of a is a(ζ^(c_j)) with c_j = h^j, and h^ℓ = 2^r (mod m)
// (Encoder, Params.SlotGenerator). For a Galois element u, slot j of κ_u(a)
// is a(ζ^(u·c_j)). Take 0 < k < ℓ:
//
//   - u = h^k: u·c_j = h^(j+k). For j + k < ℓ that is c_(j+k): slot j
//     receives slot j+k exactly. For j + k >= ℓ it is 2^r·c_(j+k-ℓ), and
//     a(ζ^(2^r·c)) = a(ζ^c)^(2^r) (Frobenius, a has GF(2) coefficients):
//     the wrapped slots receive the right value raised to 2^r.
//   - u' = h^(k-ℓ) = h^k·2^(-r): for j + k >= ℓ, u'·c_j = h^(j+k-ℓ) =
//     c_(j+k-ℓ), so the wrapped slots are exact; the others receive
//     their value raised to 2^(-r).
//
// So with the bit mask M that is 1 exactly on the wrapped slots j >= ℓ-k,
//
//	rot_k(a) = (1-M)·κ_(h^k)(a) + M·κ_(h^(k-ℓ))(a) = A + M·(B - A),
//
// A = κ_(h^k)(a), B = κ_(h^(k-ℓ))(a): the Frobenius compensation is built
// into the second Galois element, no κ_(2^-r) is needed. Cost: two key
// switches and one MulConst. When h^ℓ = 1 (gcd(d, ℓ) = 1, m = 8191) κ_(h^k)
// alone is exact and RotateSlots is Rotate.

// exactRotation reports whether κ_h rotates GF(2^d) slot values exactly.
func (pr *Params) exactRotation() bool {
	return ring.PowMod(pr.h, uint64(pr.slots), uint64(pr.m)) == 1
}

// slotRotationPair returns h^k and h^(k-ℓ) mod m for 0 <= k < ℓ.
func (pr *Params) slotRotationPair(k int) (uint64, uint64) {
	m := uint64(pr.m)
	a := ring.PowMod(pr.h, uint64(k), m)
	hl := ring.PowMod(pr.h, uint64(pr.slots), m)
	return a, a * ring.InvModPrime(hl, m) % m
}

// normRotation returns k mod ℓ in [0, ℓ).
func (pr *Params) normRotation(k int) int {
	k %= pr.slots
	if k < 0 {
		k += pr.slots
	}
	return k
}

// SlotRotationElements lists the Galois elements whose automorphism keys
// RotateSlots needs for the given rotations (sorted, without duplicates
// and without the identity): h^k and, unless rotations are exact, h^(k-ℓ).
// Pass them to KeyGenerator.AddAutoKeys.
func (pr *Params) SlotRotationElements(ks ...int) []uint64 {
	var out []uint64
	for _, k := range ks {
		k = pr.normRotation(k)
		if k == 0 {
			continue
		}
		a, b := pr.slotRotationPair(k)
		out = append(out, a)
		if !pr.exactRotation() {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// AddAutoKeys adds to ek the automorphism keys κ_t(s) → s for the given
// Galois elements that it does not hold yet (e.g. from
// Params.SlotRotationElements).
func (kg *KeyGenerator) AddAutoKeys(sk *SecretKey, ek *EvaluationKeySet, elems []uint64) error {
	for _, t := range elems {
		t %= uint64(kg.params.m)
		if _, ok := ek.auto[t]; ok || t == 1 {
			continue
		}
		key, err := kg.GenAutoKey(sk, t)
		if err != nil {
			return err
		}
		ek.SetAutoKey(t, key)
	}
	return nil
}

// WithSlotRotations returns an evaluator like ev that can also RotateSlots
// by each of ks: it holds the wrap mask of every k (a prepared constant,
// one row per ciphertext prime), built with enc. The keys must include
// Params.SlotRotationElements(ks...).
func (ev *Evaluator) WithSlotRotations(enc *Encoder, ks ...int) (*Evaluator, error) {
	pr := ev.params
	out := &Evaluator{params: pr, keys: ev.keys, wrapMasks: map[int]*ConstPlaintext{}}
	for k, m := range ev.wrapMasks {
		out.wrapMasks[k] = m
	}
	if pr.exactRotation() {
		return out, nil
	}
	for _, k := range ks {
		k = pr.normRotation(k)
		if _, ok := out.wrapMasks[k]; ok || k == 0 {
			continue
		}
		bits := make([]uint8, pr.slots)
		for j := pr.slots - k; j < pr.slots; j++ {
			bits[j] = 1
		}
		mask, err := enc.EncodeConstBits(bits)
		if err != nil {
			return nil, fmt.Errorf("bgv rotation by %d: %w", k, err)
		}
		out.wrapMasks[k] = mask
	}
	return out, nil
}

// sharedSum is the estimate of the sum of two noises derived from the same
// ciphertext: hi by the triangle inequality, lo as if independent.
func sharedSum(a, b NoiseEstimate) NoiseEstimate {
	out := addNoise(a, b)
	if a.set && b.set {
		out.hi = 2 * logAdd(a.hi/2, b.hi/2)
	}
	return out
}

// rotateSlotsNoise is the estimate of A + M·(B - A) for an input of noise a
// at level t (see above).
func (pr *Params) rotateSlotsNoise(a NoiseEstimate, t int, mask *ConstPlaintext) NoiseEstimate {
	A := pr.keySwitchNoise(a, t)
	return sharedSum(A, mulConstNoise(sharedSum(A, A), mask))
}

// RotateSlots sets out to a with its GF(2^d) slots rotated left by k (slot
// j receives slot j+k mod ℓ) exactly, whatever gcd(d, ℓ): two
// automorphisms and a wrap mask (see above; Rotate alone when rotations are
// exact). ev must come from WithSlotRotations(…, k, …) and hold the keys of
// Params.SlotRotationElements(k). a is switched down first only if the
// result would not decrypt at its level. out may alias a. Allocates nothing.
func (ev *Evaluator) RotateSlots(a *Ciphertext, k int, out *Ciphertext, sc *Scratch) error {
	pr := ev.params
	if a.Degree() != 1 {
		return fmt.Errorf("bgv rotate slots: degree %d, want 1", a.Degree())
	}
	k = pr.normRotation(k)
	if k == 0 {
		if out != a {
			copyTo(a, out)
		}
		return nil
	}
	if pr.exactRotation() {
		return ev.Rotate(a, k, out, sc)
	}
	mask := ev.wrapMasks[k]
	if mask == nil {
		return fmt.Errorf("bgv rotate slots: no wrap mask for rotation by %d (build the evaluator with WithSlotRotations)", k)
	}
	elemA, elemB := pr.slotRotationPair(k)
	if ev.keys == nil {
		return fmt.Errorf("bgv rotate slots: no automorphism keys")
	}
	for _, e := range []uint64{elemA, elemB} {
		if _, ok := ev.keys.AutoKey(e); !ok {
			return fmt.Errorf("bgv rotate slots by %d: no key for κ_%d (add Params.SlotRotationElements)", k, e)
		}
	}
	t, noise, ok := pr.constPlan(a.Noise, a.Level(), func(x NoiseEstimate, t int) NoiseEstimate {
		return pr.rotateSlotsNoise(x, t, mask)
	})
	if !ok {
		return fmt.Errorf("bgv rotate slots: noise 2^%.1f at level %d (log2 Q = %.1f): %w",
			pr.boundOf(noise), t, pr.logQ(t), ErrNoiseBudget)
	}
	x := ev.operandAt(a, t, sc.opA, sc)
	B := sc.opB
	if err := ev.Automorphism(x, elemB, B, sc); err != nil {
		return fmt.Errorf("bgv rotate slots: %w", err)
	}
	if err := ev.Automorphism(x, elemA, out, sc); err != nil { // x is not used after this
		return fmt.Errorf("bgv rotate slots: %w", err)
	}
	r := pr.ringQ
	for i := range 2 {
		r.Sub(B.Value[i], out.Value[i], B.Value[i])
	}
	pr.mulConstRows(B, mask)
	for i := range 2 {
		r.Add(out.Value[i], B.Value[i], out.Value[i])
	}
	out.Noise = noise
	return nil
}

// RotateSlotsNew returns RotateSlots(a, k) (allocating result and scratch).
func (ev *Evaluator) RotateSlotsNew(a *Ciphertext, k int) (*Ciphertext, error) {
	out := ev.params.NewCiphertext()
	if err := ev.RotateSlots(a, k, out, ev.NewScratch()); err != nil {
		return nil, err
	}
	return out, nil
}
