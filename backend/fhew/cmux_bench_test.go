package fhew

import (
	"testing"
	"time"
)

// BenchmarkCMuxCost measures, interleaved round by round so that load
// changes hit every row alike, the CMux gadget's prices on STD128_T_CMUX:
// one Select (key switch + circuit bootstrap) and one CMux (two lifts, the
// external product, the lower path) relative to the set's own NAND (one
// gate bootstrap, the unit of SelectBootstraps), and that NAND relative to
// STD128_LOWFAIL_T's (the default set's NAND, BootstrapCost's unit). One
// op of each is one round.
//
//	go test ./backend/fhew -run '^$' -bench CMuxCost -benchtime 40x
func BenchmarkCMuxCost(b *testing.B) {
	k := kitFor(b, STD128_T_CMUX)
	ref := kitFor(b, STD128_LOWFAIL_T)
	sc, rsc := NewScratch(k.p), NewScratch(ref.p)
	x, y := k.enc.EncryptNew(1), k.enc.EncryptNew(0)
	rx, ry := ref.enc.EncryptNew(1), ref.enc.EncryptNew(0)
	out, rout := NewCiphertext(k.p), NewCiphertext(ref.p)
	sel := k.ev.NewSelector()
	var nand, refNand, sel1, cmux time.Duration
	const cmuxes = 10
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		k.ev.NAND(x, y, out, sc)
		t1 := time.Now()
		if err := k.ev.Select(x, sel, sc); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		for j := 0; j < cmuxes; j++ {
			if err := k.ev.CMux(sel, x, y, out, sc); err != nil {
				b.Fatal(err)
			}
		}
		t3 := time.Now()
		ref.ev.NAND(rx, ry, rout, rsc)
		t4 := time.Now()
		nand += t1.Sub(t0)
		sel1 += t2.Sub(t1)
		cmux += t3.Sub(t2)
		refNand += t4.Sub(t3)
	}
	b.StopTimer()
	n := nand.Seconds()
	b.ReportMetric(n/float64(b.N)*1e3, "NAND-ms")
	b.ReportMetric(n/refNand.Seconds(), "NAND/default-NAND")
	b.ReportMetric(sel1.Seconds()/n, "Select/NAND")
	b.ReportMetric(cmux.Seconds()/cmuxes/n, "CMux/NAND")
	b.ReportMetric(sel1.Seconds()/refNand.Seconds(), "Select/default-NAND")
}

// TestCMuxZeroAllocs: Select and CMux allocate nothing.
func TestCMuxZeroAllocs(t *testing.T) {
	k := kitFor(t, ToySignedCMux)
	sc := NewScratch(k.p)
	sel := k.ev.NewSelector()
	x, y := k.enc.EncryptNew(1), k.enc.EncryptNew(0)
	out := NewCiphertext(k.p)
	if a := testing.AllocsPerRun(5, func() {
		if err := k.ev.Select(x, sel, sc); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Select: %v allocations", a)
	}
	if a := testing.AllocsPerRun(5, func() {
		if err := k.ev.CMux(sel, x, y, out, sc); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("CMux: %v allocations", a)
	}
}
