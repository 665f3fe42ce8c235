package bgv

import "fmt"

// PlainConst is a slot-wise constant for AddPlainConst kept as its φ(m)
// plaintext bits and its canonical-embedding size only, and lifted to the
// ciphertext's primes on each use: (t+1) forward transforms per addition
// instead of a prepared row per prime held for the whole run (11 MB per
// constant at m = 65537, see ConstPlaintext). For constants that are added
// rarely but must stay available. Immutable, safe for concurrent use.
type PlainConst struct {
	pt              BinaryPoly
	logMax, logMean float64
}

// NewPlainConst prepares pt for AddPlainConst (one complex DFT of length
// m for its size).
func (pr *Params) NewPlainConst(pt BinaryPoly) *PlainConst {
	c := &PlainConst{pt: append(BinaryPoly(nil), pt...)}
	c.logMax, c.logMean = canonicalSize(pt, pr.m)
	return c
}

// EncodePlainConst prepares the constant with values[j] ∈ GF(2^d) in slot j.
func (e *Encoder) EncodePlainConst(values []uint64) (*PlainConst, error) {
	pt := NewBinaryPoly(e.n)
	if err := e.Encode(values, pt); err != nil {
		return nil, fmt.Errorf("bgv constant: %w", err)
	}
	return e.params.NewPlainConst(pt), nil
}

// size returns the constant's size as AddConst's noise rule sees it.
func (c *PlainConst) size() *ConstPlaintext {
	return &ConstPlaintext{logMax: c.logMax, logMean: c.logMean}
}

// AddPlainConstState is the state of AddPlainConst(a, c): that of AddConst
// with the same constant.
func (pr *Params) AddPlainConstState(a NoiseState, c *PlainConst) NoiseState {
	return NoiseState{Level: a.Level, Noise: addConstNoise(a.Noise, c.size())}
}

// AddPlainConst sets out = a + c: c's bits are lifted to each prime of
// a's level and transformed (sc's coefficient buffer), then added to the
// first component. out may alias a. Allocates nothing.
func (ev *Evaluator) AddPlainConst(a *Ciphertext, c *PlainConst, out *Ciphertext, sc *Scratch) error {
	if a.Degree() != 1 {
		return fmt.Errorf("bgv add const: degree %d, want 1", a.Degree())
	}
	pr := ev.params
	r := pr.ringQ
	if out != a {
		copyTo(a, out)
	}
	buf := sc.coeff[0]
	for i, row := range out.Value[0].Rows {
		for j := range buf[:r.n] {
			buf[j] = c.pt.Bit(j)
		}
		r.transforms[i].Forward(buf, buf, sc.tr)
		q := r.moduli[i].Q
		for k := range row[:r.n] {
			row[k] = addMod(row[k], buf[k], q)
		}
	}
	out.Noise = addConstNoise(a.Noise, c.size())
	return nil
}
