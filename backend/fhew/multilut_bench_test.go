package fhew

import (
	"testing"
	"time"
)

// BenchmarkMultiLUTCost measures, interleaved round by round so that load
// changes hit every row alike, what the mapper's cost model needs: a NAND
// (one bootstrap) on each P = 4 and P = 8 set, a multi-output bootstrap
// with 2 and 4 outputs, and one extraction alone (the price of each output
// beyond the first), all relative to the NAND of STD128_LOWFAIL_T, the
// default set. One op is one round.
//
//	go test ./backend/fhew -run '^$' -bench MultiLUTCost -benchtime 40x
func BenchmarkMultiLUTCost(b *testing.B) {
	lits := []ParamsLiteral{STD128_LOWFAIL_T, STD128_LOWFAIL3_T, STD128_P8_T, STD128_P8_Q28, STD128_P8_G}
	type row struct {
		k        *testKit
		sc       *Scratch
		nand     time.Duration
		m2, m4   time.Duration
		extract  time.Duration
		in       []*Ciphertext
		outs     []*Ciphertext
		t2, t4   []uint64
		extractN int
	}
	rows := make([]*row, len(lits))
	for i, lit := range lits {
		k := kitFor(b, lit)
		r := &row{k: k, sc: NewScratch(k.p)}
		r.in = []*Ciphertext{k.enc.EncryptNew(1), k.enc.EncryptNew(0)}
		for j := 0; j < 4; j++ {
			r.outs = append(r.outs, NewCiphertext(k.p))
		}
		r.t2 = []uint64{0b1000, 0b1110} // AND, OR: common at P = 4 and 8
		r.t4 = []uint64{0b1000, 0b1110, 0b0111, 0b0001}
		rows[i] = r
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			t0 := time.Now()
			r.k.ev.NAND(r.in[0], r.in[1], r.outs[0], r.sc)
			t1 := time.Now()
			if err := r.k.ev.EvalMultiLUT(r.t2, r.in, r.outs[:2], r.sc); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			if err := r.k.ev.EvalMultiLUT(r.t4, r.in, r.outs, r.sc); err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			for j := 0; j < 10; j++ {
				r.k.ev.extractMulti(r.sc.multiAcc, 1, r.outs[j%4], r.sc.tmpA)
			}
			t4 := time.Now()
			r.nand += t1.Sub(t0)
			r.m2 += t2.Sub(t1)
			r.m4 += t3.Sub(t2)
			r.extract += t4.Sub(t3)
			r.extractN += 10
		}
	}
	b.StopTimer()
	ref := rows[0].nand.Seconds()
	for i, r := range rows {
		name := lits[i].Name
		b.ReportMetric(r.nand.Seconds()/float64(b.N)*1e3, name+"-NAND-ms")
		b.ReportMetric(r.nand.Seconds()/ref, name+"-NAND/default")
		b.ReportMetric(r.m2.Seconds()/r.nand.Seconds(), name+"-MLUT2/NAND")
		b.ReportMetric(r.m4.Seconds()/r.nand.Seconds(), name+"-MLUT4/NAND")
		b.ReportMetric(r.extract.Seconds()/float64(r.extractN)/(r.nand.Seconds()/float64(b.N)), name+"-extract/NAND")
	}
}
