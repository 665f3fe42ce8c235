//go:build amd64 && !purego

package ring

//go:noescape
func addModAVX512(a, b, c, out *uint32, n int, q uint32)

// addVec runs the vector kernel of addMod on the largest multiple of 16
// entries of out and returns how many it covered (0 without AVX-512F).
// c may be nil (two operands).
func addVec(q uint32, a, b, c, out []uint32) int {
	n := len(out) &^ 15
	if !hasAVX512 || n == 0 {
		return 0
	}
	var pc *uint32
	if c != nil {
		pc = &c[:n][0]
	}
	addModAVX512(&a[:n][0], &b[:n][0], pc, &out[:n][0], n, q)
	return n
}
