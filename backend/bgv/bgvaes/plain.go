package bgvaes

import "github.com/hcc-fhe/hcc/backend/bgv"

// plainArith is the plaintext engine: slot vectors of K, computed with
// the slot field's arithmetic. It runs the same program as the ciphertext
// engine and is checked against crypto/aes, which validates the algebra
// (embedding, linearized polynomials, the fused layers) apart from the
// encryption.
type plainArith struct {
	f *Field
	k bgv.GF2d
}

func (p *plainArith) each(a, b []uint64, op func(x, y uint64) uint64) []uint64 {
	out := make([]uint64, len(a))
	for i := range out {
		var y uint64
		if b != nil {
			y = b[i]
		}
		out[i] = op(a[i], y)
	}
	return out
}

func (p *plainArith) add(a, b []uint64) ([]uint64, error) {
	return p.each(a, b, func(x, y uint64) uint64 { return x ^ y }), nil
}

func (p *plainArith) addConst(a []uint64, c byte) ([]uint64, error) {
	e := p.f.Embed(c)
	return p.each(a, nil, func(x, _ uint64) uint64 { return x ^ e }), nil
}

func (p *plainArith) mul(a, b []uint64) ([]uint64, error) {
	return p.each(a, b, p.k.Mul), nil
}

func (p *plainArith) frob(a []uint64, j int) ([]uint64, error) {
	return p.each(a, nil, func(x, _ uint64) uint64 { return p.k.Frobenius(x, j) }), nil
}

func (p *plainArith) lin(a []uint64, m *linMap) ([][]uint64, error) {
	var outs [][]uint64
	for _, c := range m.coeffs {
		outs = append(outs, p.each(a, nil, func(x, _ uint64) uint64 { return p.f.eval(c, x) }))
	}
	return outs, nil
}

func (p *plainArith) free([]uint64) {}

func (p *plainArith) addVec(a []uint64, v *slotConst) ([]uint64, error) {
	return p.add(a, v.vals)
}
