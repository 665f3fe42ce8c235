package ring

// AutomorphismNTTPair applies X -> X^t in the NTT domain to two
// polynomials at once: outX[k] = inX[index[k]] and outY[k] = inY[index[k]]
// in both residues, index = AutomorphismNTTIndex(N, t). It is two
// AutomorphismNTT calls in one loop, which loads each index once for four
// gathers (cbs's trace applies τ to both halves of a ciphertext). No
// output may alias an input.
func (r *RNS2) AutomorphismNTTPair(inX, inY Poly2, index []uint32, outX, outY Poly2) {
	N := r.N
	index = index[:N]
	x0, x1, y0, y1 := inX[0][:N], inX[1][:N], inY[0][:N], inY[1][:N]
	ox0, ox1, oy0, oy1 := outX[0][:N], outX[1][:N], outY[0][:N], outY[1][:N]
	for k, s := range index {
		// One bounds check per input covers all four (equal lengths).
		_ = x0[s]
		ox0[k], ox1[k], oy0[k], oy1[k] = x0[s], x1[s], y0[s], y1[s]
	}
}
