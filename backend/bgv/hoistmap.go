package bgv

import (
	"fmt"
)

// LinearMaps are several slot-wise linear maps of one ciphertext that use
// the same automorphisms: map k is x ↦ Σ_i c_(k,i)·κ_(u_i)(x) with public
// constants c_(k,i) (e.g. a linearized polynomial Σ_j c_j·x^(2^j) with
// u_j = 2^j). ApplyLinearMaps evaluates them all from one Hoisted
// decomposition with one division by P per map (see hoist.go). Immutable,
// safe for concurrent use.
type LinearMaps struct {
	elems  []uint64
	consts [][]*ConstPlaintext // [map][term]; nil: the term is absent from that map
	pRows  [][]*Poly           // the constants over the special primes (ringP)
}

// NewLinearMaps prepares the maps consts[k] (one constant per element of
// elems, nil for a zero coefficient) over the automorphisms κ_u, u in elems
// (u = 1 is the identity and needs no key).
func (pr *Params) NewLinearMaps(elems []uint64, consts [][]*ConstPlaintext) (*LinearMaps, error) {
	if len(consts) == 0 {
		return nil, fmt.Errorf("bgv linear maps: no maps")
	}
	seen := map[uint64]bool{}
	lm := &LinearMaps{}
	for _, u := range elems {
		u %= uint64(pr.m)
		if u == 0 {
			return nil, fmt.Errorf("bgv linear maps: galois element 0 is not a unit mod %d", pr.m)
		}
		if seen[u] {
			return nil, fmt.Errorf("bgv linear maps: galois element %d repeated", u)
		}
		seen[u] = true
		lm.elems = append(lm.elems, u)
	}
	rp := pr.ringP
	tr := rp.NewScratch()
	for k, cs := range consts {
		if len(cs) != len(elems) {
			return nil, fmt.Errorf("bgv linear maps: map %d has %d constants for %d automorphisms", k, len(cs), len(elems))
		}
		rows := make([]*Poly, len(cs))
		for i, c := range cs {
			if c != nil && lm.elems[i] != 1 {
				rows[i] = plainPoly(rp, c.pt, rp.MaxLevel(), tr)
			}
		}
		lm.consts = append(lm.consts, append([]*ConstPlaintext(nil), cs...))
		lm.pRows = append(lm.pRows, rows)
	}
	return lm, nil
}

// Maps returns the number of maps.
func (lm *LinearMaps) Maps() int { return len(lm.consts) }

// Elements returns the Galois elements (keys needed for all but 1).
func (lm *LinearMaps) Elements() []uint64 { return append([]uint64(nil), lm.elems...) }

// mapNoise is the estimate of map k on a ciphertext of noise a at level t:
// each term is a key switch (not for u = 1) and a constant product, the
// terms are summed by the sum rule. The lazy division rounds once instead
// of once per term, so the real noise is a little lower.
func (pr *Params) mapNoise(lm *LinearMaps, k int, a NoiseEstimate, t int) NoiseEstimate {
	var out NoiseEstimate
	for i, c := range lm.consts[k] {
		if c == nil {
			continue
		}
		x := a
		if lm.elems[i] != 1 {
			x = pr.keySwitchNoise(a, t)
		}
		out = addNoise(out, mulConstNoise(x, c))
	}
	return out
}

// LinearMapsPlan returns the level at which to hoist a ciphertext of state
// a for ApplyLinearMaps (a is switched down only while a result would not
// decrypt and dropping pays, as for MulConst) and the maps' result states;
// the error wraps ErrNoiseBudget if no level works.
func (pr *Params) LinearMapsPlan(a NoiseState, lm *LinearMaps) (int, []NoiseState, error) {
	st, t := a.Noise, a.Level
	outs := make([]NoiseState, lm.Maps())
	for {
		ok := true
		for k := range outs {
			outs[k] = NoiseState{Level: t, Noise: pr.mapNoise(lm, k, st, t)}
			ok = ok && pr.decrypts(outs[k])
		}
		if ok {
			return t, outs, nil
		}
		if !pr.shouldDrop(st, t) {
			for _, o := range outs {
				if !pr.decrypts(o) {
					return t, outs, fmt.Errorf("bgv linear map: noise 2^%.1f at level %d (log2 Q = %.1f): %w",
						pr.boundOf(o.Noise), t, pr.logQ(t), ErrNoiseBudget)
				}
			}
		}
		st, t = pr.dropNoise(st, t), t-1
	}
}

// ApplyLinearMaps sets outs[k] to map k of the hoisted ciphertext, at h's
// level (choose it with LinearMapsPlan). Every non-identity term of a map
// costs one pointwise inner product over Q_t·P and each map one division
// by P; the maps run one after the other on the scratch's key-switching
// accumulators (recomputing the inner products per map costs less than
// 30 MB more buffers per map at m = 65537 would). The evaluator needs the
// keys of every element but 1. Allocates two small slices per call.
func (ev *Evaluator) ApplyLinearMaps(h *Hoisted, lm *LinearMaps, outs []*Ciphertext, sc *Scratch) error {
	pr := ev.params
	if h.level < 0 {
		return fmt.Errorf("bgv linear map: empty hoisted ciphertext")
	}
	if len(outs) != lm.Maps() {
		return fmt.Errorf("bgv linear map: %d outputs for %d maps", len(outs), lm.Maps())
	}
	t := h.level
	for k := range outs {
		st := NoiseState{Level: t, Noise: pr.mapNoise(lm, k, h.noise, t)}
		if !pr.decrypts(st) {
			return fmt.Errorf("bgv linear map %d: noise 2^%.1f at level %d (log2 Q = %.1f): %w",
				k, pr.boundOf(st.Noise), t, pr.logQ(t), ErrNoiseBudget)
		}
	}
	keys := make([]*SwitchingKey, len(lm.elems))
	shifts := make([]int, len(lm.elems))
	for i, u := range lm.elems {
		if u == 1 {
			continue
		}
		key, e, err := ev.autoKeyOf(u)
		if err != nil {
			return err
		}
		keys[i], shifts[i] = key, e
	}
	lv := &pr.rns[t]
	nExt := len(lv.qp)
	L := pr.MaxLevel()
	r := pr.ringQ
	for k, out := range outs {
		setLevel(out, t)
		keyed := false // the map has a non-identity term
		for i := 0; i < nExt; i++ {
			idx := lv.qp[i]
			md := &pr.ringQP.moduli[idx]
			first := true
			for term, u := range lm.elems {
				c := lm.consts[k][term]
				if u == 1 || c == nil {
					continue
				}
				keyed = true
				pr.innerRow(h, i, shifts[term], keys[term], h.tmp0, h.tmp1)
				var cr []uint64
				if idx <= L {
					cr = c.eval.Rows[idx]
				} else {
					cr = lm.pRows[k][term].Rows[idx-L-1]
				}
				if first {
					md.mulVec(h.tmp0, cr, sc.acc0[i])
					md.mulVec(h.tmp1, cr, sc.acc1[i])
					first = false
				} else {
					md.mulAddVec(h.tmp0, cr, sc.acc0[i])
					md.mulAddVec(h.tmp1, cr, sc.acc1[i])
				}
			}
		}
		if keyed {
			pr.divideByP(t, sc.acc0[:nExt], out.Value[0], sc)
			pr.divideByP(t, sc.acc1[:nExt], out.Value[1], sc)
		} else {
			for _, p := range out.Value {
				for _, row := range p.Rows {
					clear(row)
				}
			}
		}
		// The c_0 parts: Σ_u c_u·κ_u(c_0), and c·(c_0, c_1) for u = 1.
		for term, u := range lm.elems {
			c := lm.consts[k][term]
			if c == nil {
				continue
			}
			for i := 0; i <= t; i++ {
				md := &r.moduli[i]
				cr := c.eval.Rows[i][:r.n]
				if u == 1 {
					md.mulAddVec(h.c0.Rows[i], cr, out.Value[0].Rows[i])
					md.mulAddVec(h.c1.Rows[i], cr, out.Value[1].Rows[i])
					continue
				}
				e := shifts[term]
				src := h.c0.Rows[i]
				copy(h.tmp0, src[e:])
				copy(h.tmp0[r.n-e:], src[:e])
				md.mulAddVec(h.tmp0, cr, out.Value[0].Rows[i])
			}
		}
		out.Noise = pr.mapNoise(lm, k, h.noise, t)
	}
	return nil
}
