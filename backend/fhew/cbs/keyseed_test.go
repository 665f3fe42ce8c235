package cbs

import (
	"slices"
	"testing"
)

// TestRegenPublic wipes every uniform part of a generated key and expands
// it again from the seed: the key must come back bit for bit, with the b
// parts untouched (so a key file can hold the seed and the b parts only).
func TestRegenPublic(t *testing.T) {
	k := keysFor(t, ToyCBS)
	ek := k.ek
	p := k.p
	ks := slices.Clone(ek.ks)
	var polys [][]uint32
	each := func(f func(a []uint32)) {
		for _, pair := range ek.brk {
			for _, g := range pair {
				for _, a := range g.A {
					f(a[0])
					f(a[1])
				}
			}
		}
		for _, kk := range append(slices.Clone(ek.trace), ek.ss) {
			for _, a := range kk.A {
				f(a[0])
				f(a[1])
			}
		}
	}
	each(func(a []uint32) { polys = append(polys, slices.Clone(a)) })
	// Wipe: a lanes of every KS row, every A polynomial.
	n := p.lit.LWEDim
	for off := 0; off < len(ek.ks); off += ek.ksWords {
		for j := 0; j < n; j++ {
			ek.ks[off+j/4] &^= 0xffff << (16 * uint(j%4))
		}
	}
	each(func(a []uint32) { clear(a) })
	regenPublic(ek)
	if !slices.Equal(ks, ek.ks) {
		t.Fatal("LWE key-switching rows differ after regenPublic")
	}
	i := 0
	each(func(a []uint32) {
		if !slices.Equal(a, polys[i]) {
			t.Fatalf("uniform polynomial %d differs after regenPublic", i)
		}
		i++
	})
	// Independent streams: the first A polynomials of s_0's and s_1's keys differ.
	if slices.Equal(ek.brk[0][0].A[0][0], ek.brk[1][0].A[0][0]) {
		t.Fatal("blind-rotation keys of s_0 and s_1 share their uniform part")
	}
	// The key still works after the round trip.
	sc := NewScratch(p)
	w := NewWideBit(p)
	g := k.ev.NewRGSW()
	if err := k.enc.Encrypt(true, w); err != nil {
		t.Fatal(err)
	}
	if err := k.ev.CBS(w, g, sc); err != nil {
		t.Fatal(err)
	}
	if e := checkRGSW(t, k, g, 1); e > float64(p.q>>12) {
		t.Fatalf("CBS after regenPublic: row error 2^%.1f", log2(e))
	}
}

// TestSWARLanes checks the key switch's lane-wise add and subtract mod 2^16
// against per-lane arithmetic.
func TestSWARLanes(t *testing.T) {
	const hi = 0x8000800080008000
	const lo = 0x7fff7fff7fff7fff
	x, y := uint64(0x0123_ffff_8000_7fff), uint64(0xfedc_0001_8000_8001)
	for i := 0; i < 10000; i++ {
		add := ((x & lo) + (y & lo)) ^ ((x ^ y) & hi)
		sub := ((x | hi) - (y & lo)) ^ ((x ^ ^y) & hi)
		for l := uint(0); l < 64; l += 16 {
			a, b := uint16(x>>l), uint16(y>>l)
			if uint16(add>>l) != a+b || uint16(sub>>l) != a-b {
				t.Fatalf("lanes %#x, %#x: add %#x sub %#x", a, b, uint16(add>>l), uint16(sub>>l))
			}
		}
		x = x*6364136223846793005 + 1442695040888963407
		y = y*2862933555777941757 + 3037000493
	}
}
