package cbs

import (
	"testing"
	"time"
)

// BenchmarkInputFormCost measures, interleaved round by round with fhew's
// NAND at STD128_LOWFAIL_T and one circuit bootstrap, InputFormRGSW on
// forms of 1, 2 and 3 input bits at STD128_CBS (AES's forms have 1 and 2),
// in ms, NAND-times and CBS-times, beside the model's InputFormCost/CBS
// ratio. One op is one round.
//
//	go test ./backend/fhew/cbs -run '^$' -bench InputFormCost -benchtime 20x
func BenchmarkInputFormCost(b *testing.B) {
	nk := nandFor(b)
	k := keys128(b)
	sc := NewScratch(k.p)
	g := k.ev.NewRGSW()
	in := NewWideBit(k.p)
	if err := k.enc.Encrypt(true, in); err != nil {
		b.Fatal(err)
	}
	terms, err := k.enc.EncryptInputRGSW([]bool{true, false, true})
	if err != nil {
		b.Fatal(err)
	}
	var nand, cbs time.Duration
	var form [3]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		nk()
		t1 := time.Now()
		if err := k.ev.CBS(in, g, sc); err != nil {
			b.Fatal(err)
		}
		nand += t1.Sub(t0)
		cbs += time.Since(t1)
		for t := range form {
			t2 := time.Now()
			if err := k.ev.InputFormRGSW(terms[:t+1], g, sc); err != nil {
				b.Fatal(err)
			}
			form[t] += time.Since(t2)
		}
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(per(nand)*1e3, "NAND-ms")
	b.ReportMetric(per(cbs)*1e3, "CBS-ms")
	for t, d := range form {
		name := string(rune('1'+t)) + "term"
		b.ReportMetric(per(d)*1e3, name+"-ms")
		b.ReportMetric(per(d)/per(nand), name+"/NAND")
		b.ReportMetric(per(d)/per(cbs), name+"/CBS")
	}
	for t := 1; t <= 3; t++ {
		b.ReportMetric(k.p.InputFormCost(t)/k.p.Cost().CBS, "model-"+string(rune('0'+t))+"term/CBS")
	}
}
