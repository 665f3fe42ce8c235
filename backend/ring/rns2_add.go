package ring

// Add3 sets out = a + b + c mod Q (either domain; entries fully reduced).
// Any of a, b, c, out may alias. It is one pass where two Adds take two
// (the trace's ct + τ(ct) + KS part in cbs).
func (r *RNS2) Add3(a, b, c, out Poly2) {
	for i, nt := range r.NTT {
		addMod(nt.Q, a[i][:r.N], b[i][:r.N], c[i][:r.N], out[i][:r.N])
	}
}

// addMod sets out = a + b (+ c unless c is nil) mod q slot-wise, entries in
// [0, q): in the vector kernel (add32_amd64.s) where it applies, then in Go.
// Any of the slices may alias.
func addMod(q uint32, a, b, c, out []uint32) {
	a, b = a[:len(out)], b[:len(out)]
	if c != nil {
		c = c[:len(out)]
	}
	n := addVec(q, a, b, c, out)
	a, b, out = a[n:], b[n:], out[n:]
	a, b = a[:len(out)], b[:len(out)]
	if c == nil {
		for i := range out {
			s := a[i] + b[i]
			out[i] = min(s, s-q)
		}
		return
	}
	c = c[n:]
	c = c[:len(out)]
	for i := range out {
		s := a[i] + b[i]
		s = min(s, s-q) + c[i]
		out[i] = min(s, s-q)
	}
}
