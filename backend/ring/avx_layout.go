package ring

// Lane layouts for the in-register stages of the vector NTT32 (used by the
// amd64 kernels; plain data, built on every architecture so it stays tested).
//
// A chunk of 32 consecutive entries e = 0..31 lives in two 16-lane registers;
// position p = reg·16 + lane. In the natural layout p = e. In layout L_s
// (the stage with butterfly distance t = 2^s) reg is bit s of e and the lane
// is e with bit s removed, so each butterfly pairs the same lane of the two
// registers, and the butterfly group within the chunk is lane >> s.

func posNat(e int) int { return e }

func posL(s, e int) int {
	reg := (e >> s) & 1
	lane := ((e >> (s + 1)) << s) | (e & (1<<s - 1))
	return reg*16 + lane
}

func elemL(s, p int) int {
	reg, lane := p>>4, p&15
	return ((lane >> s) << (s + 1)) | (reg << s) | (lane & (1<<s - 1))
}

// permIndex returns the VPERMI2D index vectors (32 entries: output register
// 0 then 1) that move a chunk from layout from to layout to; -1 stands for
// the natural layout.
func permIndex(from, to int) []uint32 {
	idx := make([]uint32, 32)
	for p := range idx {
		e := p
		if to >= 0 {
			e = elemL(to, p)
		}
		src := posNat(e)
		if from >= 0 {
			src = posL(from, e)
		}
		idx[p] = uint32(src)
	}
	return idx
}

// avxTables holds, as 64-byte vectors: 0-9 the forward permutations
// nat->L3, L3->L2, L2->L1, L1->L0, L0->nat; 10-19 the inverse ones nat->L0,
// L0->L1, L1->L2, L2->L3, L3->nat (VPERMI2D indices).
var avxTables = func() []uint32 {
	var t []uint32
	for _, st := range [][2]int{{-1, 3}, {3, 2}, {2, 1}, {1, 0}, {0, -1}, {-1, 0}, {0, 1}, {1, 2}, {2, 3}, {3, -1}} {
		t = append(t, permIndex(st[0], st[1])...)
	}
	return t
}()

// avxTailTwiddles lays out the twiddles of the in-register stages t = 8, 4,
// 2 (s = 3, 2, 1) for the vector kernels: per stage (N entries each) and
// chunk k of 32 entries, the 16 twiddles of the lanes of layout L_s, then
// their Shoup companions. Lane l of chunk k holds butterfly group l >> s
// of the chunk, so it gets ψ_rev[N/2^(s+1) + k·(16 >> s) + (l >> s)]
// (the same index for both transforms; psi, psiS are the tables of the
// one at hand).
func avxTailTwiddles(psi, psiS []uint32) []uint32 {
	N := len(psi)
	tw := make([]uint32, 0, 3*N)
	for s := 3; s >= 1; s-- {
		m := N >> (s + 1)
		for k := range N / 32 {
			for _, tab := range [][]uint32{psi, psiS} {
				for l := range 16 {
					tw = append(tw, tab[m+k*(16>>s)+l>>s])
				}
			}
		}
	}
	return tw
}
