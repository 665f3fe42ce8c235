package cbs

// maxDigKS bounds the LWE key switch's digits (log Q_ks ≤ 16, log B_ks ≥ 1).
const maxDigKS = 16

// keySwitchLWEBatch sets, for every scratch sc of scs, sc.ksAcc (4 lanes of
// 16 bits per word) to the LWE encryption under s of the phase of sc.lwe
// (under z, mod Q_ks): (0.., b) plus, per coefficient i and signed digit v
// of lwe[i] at position d (v in [-B/2, B/2); a carry out of the top digit
// is a multiple of Q_ks), the stored row (i, d, |v|), subtracted when
// v < 0. Lanes are added and subtracted mod 2^16 without carries between
// them (SWAR). offs needs len(scs)·N·d_ks entries.
//
// The rows are scattered over a key of ~100 MB, so the loop is bound by
// memory latency: it first lists the rows of all the batch's samples in
// (i, d, sample) order (offs: row offset << 8 | sample << 1 | sign), then
// adds them with the rows a few entries ahead in flight: on AVX-512BW the
// kernel of ks_amd64.s (PREFETCHT0 of the row 4 entries ahead, VPADDW/
// VPSUBW; 3.2x faster than the Go loop, flat for distances 2..8), else
// ksAddRowsGo, which touches one word per cache line of the row two ahead
// (Go has no prefetch instruction). In a batch, consecutive rows fall in the same block of
// B/2 rows (i, d, ·), a few pages, instead of one block per row: measured
// 16-20 % less time per sample for batches of 2-4 (BenchmarkKeySwitchBatch).
// Each accumulator receives its rows in the same order as alone, so the
// results do not depend on the batch.
func keySwitchLWEBatch(p Params, ek *EvaluationKey, scs []*Scratch, offs []uint64) uint64 {
	n := p.lit.LWEDim
	for _, sc := range scs {
		acc := sc.ksAcc
		clear(acc)
		acc[n/4] = sc.lwe[p.ringN] << (16 * uint(n%4))
	}
	logB := uint(p.lit.LogBKS)
	B := int64(1) << logB
	dmask := uint64(B - 1)
	V := ksValues(p)
	W := ek.ksWords
	// Row (i, d, |v|) starts at word ((i·d_ks + d)·V + |v| - 1)·W.
	rowOf := func(i, d int, v int64, c int) uint64 {
		sign := uint64(0)
		if v < 0 {
			v, sign = -v, 1
		}
		return uint64(((i*p.digKS+d)*V+int(v)-1)*W)<<8 | uint64(c)<<1 | sign
	}
	cnt := 0
	var dv [MaxBatch][maxDigKS]int64
	for i := 0; i < p.ringN; i++ {
		for c, sc := range scs {
			a := sc.lwe[i]
			for d := 0; d < p.digKS; d++ {
				v := int64(a & dmask)
				a >>= logB
				if v >= B/2 {
					v -= B
					a++
				}
				dv[c][d] = v
			}
		}
		for d := 0; d < p.digKS; d++ {
			for c := range scs {
				if v := dv[c][d]; v != 0 {
					offs[cnt] = rowOf(i, d, v, c)
					cnt++
				}
			}
		}
	}
	var accs [MaxBatch][]uint64
	for c, sc := range scs {
		accs[c] = sc.ksAcc
	}
	if hasKSVec {
		ksAddRowsVec(ek.ks, W, offs[:cnt], accs[:len(scs)])
		return 0
	}
	return ksAddRowsGo(ek.ks, W, offs[:cnt], accs[:len(scs)])
}

// ksAddRowsGo adds (sign 0) or subtracts (sign 1) the rows ks[off:off+W]
// named by offs (off << 8 | sample << 1 | sign) into accs[sample][:W], lane
// by lane mod 2^16 (SWAR), touching one word per cache line of the row two
// entries ahead so its misses overlap the additions (Go has no prefetch
// instruction). It is the fallback and the tests' reference for the
// AVX-512 kernel (ks_amd64.s); the sum it returns keeps the loads alive.
func ksAddRowsGo(ks []uint64, W int, offs []uint64, accs [][]uint64) uint64 {
	const hi = 0x8000800080008000
	const lo = 0x7fff7fff7fff7fff
	var sink uint64
	const ahead = 2 // 1 and 3 measured slower
	cnt := len(offs)
	for j := 0; j < cnt; j++ {
		if j+ahead < cnt {
			o := int(offs[j+ahead] >> 8)
			next := ks[o : o+W]
			for w := 0; w < len(next); w += 8 {
				sink += next[w]
			}
		}
		e := offs[j]
		off := int(e >> 8)
		row := ks[off : off+W]
		acc := accs[e>>1&(1<<7-1)][:len(row)]
		if e&1 == 0 {
			for w, y := range row {
				x := acc[w]
				acc[w] = ((x & lo) + (y & lo)) ^ ((x ^ y) & hi)
			}
		} else {
			for w, y := range row {
				x := acc[w]
				acc[w] = ((x | hi) - (y & lo)) ^ ((x ^ ^y) & hi)
			}
		}
	}
	return sink
}
