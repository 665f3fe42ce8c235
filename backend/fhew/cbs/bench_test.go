package cbs

import (
	"sync"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
)

// nandKit is fhew's default set STD128_LOWFAIL_T, the unit of every cost.
type nandKit struct {
	ev   *fhew.Evaluator
	sc   *fhew.Scratch
	a, b *fhew.Ciphertext
	out  *fhew.Ciphertext
}

var (
	nandOnce sync.Once
	nandK    *nandKit
	nandErr  error
)

func nandFor(b *testing.B) *nandKit {
	nandOnce.Do(func() {
		p, err := fhew.NewParams(fhew.STD128_LOWFAIL_T)
		if err != nil {
			nandErr = err
			return
		}
		sk, err := fhew.NewSecretKey(p)
		if err != nil {
			nandErr = err
			return
		}
		ek, err := fhew.GenEvaluationKey(sk)
		if err != nil {
			nandErr = err
			return
		}
		ev, err := fhew.NewEvaluator(p, ek)
		if err != nil {
			nandErr = err
			return
		}
		enc, err := fhew.NewEncryptor(sk)
		if err != nil {
			nandErr = err
			return
		}
		nandK = &nandKit{ev: ev, sc: fhew.NewScratch(p), a: enc.EncryptNew(1), b: enc.EncryptNew(0), out: fhew.NewCiphertext(p)}
	})
	if nandErr != nil {
		b.Fatal(nandErr)
	}
	return nandK
}

// keys128 generates (once) a STD128_CBS key set.
var (
	k128Once sync.Once
	k128     *testKeys
)

func keys128(b testing.TB) *testKeys {
	k128Once.Do(func() { k128 = keysFor(b, STD128_CBS) })
	if k128 == nil {
		b.Fatal("no STD128_CBS keys")
	}
	return k128
}

// BenchmarkCBSCost measures, interleaved round by round with fhew's NAND at
// STD128_LOWFAIL_T (so load changes hit every row alike), one circuit
// bootstrap, one 8-input 8-output table by vertical packing (the AES
// S-box) and the LWE key switch alone at STD128_CBS, in ms and in
// NAND-times. One op is one round. It also projects AES-128 (1600 CBS +
// 200 tables) in NAND-equivalents.
//
//	go test ./backend/fhew/cbs -run '^$' -bench CBSCost -benchtime 10x
func BenchmarkCBSCost(b *testing.B) {
	nk := nandFor(b)
	k := keys128(b)
	sc := NewScratch(k.p)
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	rg, outs := newBuffers(k, 8, 8)
	in := NewWideBit(k.p)
	if err := k.enc.Encrypt(true, in); err != nil {
		b.Fatal(err)
	}
	for j := range rg {
		if err := k.ev.CBS(in, rg[j], sc); err != nil {
			b.Fatal(err)
		}
	}
	var nand, cbs, vp, ks time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		nk.ev.NAND(nk.a, nk.b, nk.out, nk.sc)
		t1 := time.Now()
		if err := k.ev.CBS(in, rg[i%8], sc); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := k.ev.EvalTable(rg, tabs, outs, sc); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		k.ev.toSmallLWE(in, sc)
		t4 := time.Now()
		nand += t1.Sub(t0)
		cbs += t2.Sub(t1)
		vp += t3.Sub(t2)
		ks += t4.Sub(t3)
	}
	b.StopTimer()
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return d.Seconds() / n * 1e3 }
	b.ReportMetric(ms(nand), "NAND-ms")
	b.ReportMetric(ms(cbs), "CBS-ms")
	b.ReportMetric(ms(vp), "VP8x8-ms")
	b.ReportMetric(ms(ks), "KS-ms")
	b.ReportMetric(cbs.Seconds()/nand.Seconds(), "CBS/NAND")
	b.ReportMetric(vp.Seconds()/nand.Seconds(), "VP8x8/NAND")
	b.ReportMetric(ks.Seconds()/nand.Seconds(), "KS/NAND")
	b.ReportMetric((1600*cbs.Seconds()+200*vp.Seconds())/nand.Seconds(), "AES-NAND-eq")
}
