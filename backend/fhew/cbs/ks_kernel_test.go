package cbs

import (
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"time"
)

// ksLaneValues are the lane values around the signed and unsigned 16-bit
// wrap points, mixed into the random rows and accumulators.
var ksLaneValues = []uint64{0, 1, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff}

func ksRandomWord(r *mrand.Rand) uint64 {
	var x uint64
	for l := 0; l < 4; l++ {
		v := r.Uint64() & 0xffff
		if r.IntN(2) == 0 {
			v = ksLaneValues[r.IntN(len(ksLaneValues))]
		}
		x |= v << (16 * l)
	}
	return x
}

// ksLaneRef is the obvious reference: row added or subtracted lane by
// lane as uint16.
func ksLaneRef(ks []uint64, W int, offs []uint64, accs [][]uint64) {
	for _, e := range offs {
		row := ks[e>>8:][:W]
		acc := accs[e>>1&127]
		for w := range row {
			var out uint64
			for l := 0; l < 4; l++ {
				x, y := uint16(acc[w]>>(16*l)), uint16(row[w]>>(16*l))
				if e&1 == 0 {
					x += y
				} else {
					x -= y
				}
				out |= uint64(x) << (16 * l)
			}
			acc[w] = out
		}
	}
}

// TestKSAddRows checks the key switch's row additions, Go loop and (where
// built and supported) the AVX-512 kernel, against the lane-by-lane
// reference on random rows and offsets: both signs, the wrap-point lane
// values, W of every residue mod 8, batches 1..MaxBatch, prefetch distances
// 0..9 and entry counts below and above them; the words past W must stay.
func TestKSAddRows(t *testing.T) {
	r := mrand.New(mrand.NewPCG(7, 8))
	if !hasKSVec {
		t.Log("no AVX-512BW on this CPU (or purego build): vector kernel not exercised")
	}
	defer func(a int) { setKSAhead(a) }(ksAheadVec)
	for _, W := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 131, 140, 141} {
		rows := 40
		ks := make([]uint64, rows*W+5)
		for i := range ks {
			ks[i] = ksRandomWord(r)
		}
		for k := 1; k <= MaxBatch; k++ {
			for _, cnt := range []int{0, 1, 2, 5, 64} {
				offs := make([]uint64, cnt)
				for j := range offs {
					off := uint64(r.IntN(rows))*uint64(W) + uint64(r.IntN(6))
					offs[j] = off<<8 | uint64(r.IntN(k))<<1 | uint64(r.IntN(2))
				}
				mk := func() [][]uint64 {
					a := make([][]uint64, k)
					for c := range a {
						a[c] = make([]uint64, W+3)
					}
					return a
				}
				ref, got := mk(), mk()
				for c := range ref {
					for w := range ref[c] {
						ref[c][w] = ksRandomWord(r)
					}
					got[c] = slices.Clone(ref[c])
				}
				ksLaneRef(ks, W, offs, ref)
				goAcc := mk()
				for c := range goAcc {
					copy(goAcc[c], got[c])
				}
				ksAddRowsGo(ks, W, offs, goAcc)
				for c := range ref {
					if !slices.Equal(goAcc[c], ref[c]) {
						t.Fatalf("Go loop: W=%d k=%d cnt=%d sample %d differs", W, k, cnt, c)
					}
				}
				if !hasKSVec {
					continue
				}
				ahead := r.IntN(10)
				setKSAhead(ahead)
				ksAddRowsVec(ks, W, offs, got)
				for c := range ref {
					if !slices.Equal(got[c], ref[c]) {
						t.Fatalf("AVX-512: W=%d k=%d cnt=%d ahead=%d sample %d differs:\n got %x\nwant %x", W, k, cnt, ahead, c, got[c], ref[c])
					}
				}
			}
		}
	}
}

// TestKSAddRowsAllocs checks that the key switch allocates nothing.
func TestKSAddRowsAllocs(t *testing.T) {
	r := mrand.New(mrand.NewPCG(9, 10))
	const W, rows, k = 140, 64, MaxBatch
	ks := make([]uint64, rows*W)
	for i := range ks {
		ks[i] = r.Uint64()
	}
	offs := make([]uint64, 256)
	for j := range offs {
		offs[j] = uint64(r.IntN(rows)*W)<<8 | uint64(r.IntN(k))<<1 | uint64(r.IntN(2))
	}
	accs := make([][]uint64, k)
	for c := range accs {
		accs[c] = make([]uint64, W)
	}
	if n := testing.AllocsPerRun(10, func() {
		ksAddRowsGo(ks, W, offs, accs)
		if hasKSVec {
			ksAddRowsVec(ks, W, offs, accs)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per run", n)
	}
}

// BenchmarkKeySwitchAhead times the LWE key switch at STD128_CBS on 4
// samples, alone and in one batch of 4, for the AVX-512 kernel's prefetch
// distances (interleaved, each after evicting the key from the caches as
// BenchmarkKeySwitchBatch does), in ms per sample.
//
//	go test ./backend/fhew/cbs -run '^$' -bench KeySwitchAhead -benchtime 10x
func BenchmarkKeySwitchAhead(b *testing.B) {
	if !hasKSVec {
		b.Skip("no AVX-512BW kernel")
	}
	k := keys128(b)
	ws, _ := randomWideBits(b, k, mrand.New(mrand.NewPCG(43, 44)), 4)
	bs, err := NewBatchScratch(k.p, len(ws))
	if err != nil {
		b.Fatal(err)
	}
	for j, w := range ws {
		k.ev.modSwitchKS(w, bs.scs[j])
	}
	flushBuf := make([]uint64, 96<<20/8)
	var sink uint64
	defer func(a int) { setKSAhead(a) }(ksAheadVec)
	aheads := []int{0, 2, 3, 4, 6, 8}
	sizes := []int{1, 4}
	ts := make([]time.Duration, len(aheads)*len(sizes))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for a, ahead := range aheads {
			setKSAhead(ahead)
			for s, n := range sizes {
				for _, x := range flushBuf {
					sink += x
				}
				t0 := time.Now()
				for lo := 0; lo < len(ws); lo += n {
					sink += keySwitchLWEBatch(k.p, k.ek, bs.scs[lo:lo+n], bs.ksOffs)
				}
				ts[a*len(sizes)+s] += time.Since(t0)
			}
		}
	}
	b.StopTimer()
	for a, ahead := range aheads {
		for s, n := range sizes {
			b.ReportMetric(ts[a*len(sizes)+s].Seconds()/float64(b.N*len(ws))*1e3, fmt.Sprintf("a%d-k%d-ms/KS", ahead, n))
		}
	}
	bs.scs[0].sink += sink
}
