package fhew

import (
	"fmt"
	"testing"
)

// benchSets are the (parameter set, method, window) rows of Table 3.
func benchSets(b *testing.B) []Params {
	b.Helper()
	var out []Params
	add := func(lit ParamsLiteral, m Method, w int) {
		p, err := NewParams(lit)
		if err != nil {
			b.Fatal(err)
		}
		if m != lit.Method || w != lit.Window {
			if p, err = p.WithMethod(m, w); err != nil {
				b.Fatal(err)
			}
		}
		out = append(out, p)
	}
	add(STD128_LMKCDEY_G, MethodSigned, 7)
	add(STD128_LMKCDEY_G, MethodLMKCDEY, 10)
	add(STD128_T, MethodSigned, 10)
	add(STD128_T, MethodLMKCDEY, 10)
	add(STD128_T, MethodGINX, 10)
	add(STD128_GINX, MethodGINX, 10)
	add(STD128_LOWFAIL_T, MethodSigned, 10)
	add(STD128_LOWFAIL3_T, MethodSigned, 10)
	return out
}

func benchKit(b *testing.B, p Params) *testKit {
	lit := p.Literal()
	kitMu.Lock()
	k, ok := kits[lit.Name]
	kitMu.Unlock()
	if ok {
		return k
	}
	// kitFor builds from the literal; the derived name keeps sets apart.
	return kitFor(b, lit)
}

func BenchmarkNAND(b *testing.B) {
	for _, p := range benchSets(b) {
		b.Run(p.Name(), func(b *testing.B) {
			k := benchKit(b, p)
			sc := NewScratch(p)
			x, y, out := k.enc.EncryptNew(1), k.enc.EncryptNew(0), NewCiphertext(p)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k.ev.NAND(x, y, out, sc)
			}
			b.StopTimer()
			a, n := sc.Automorphisms()
			b.ReportMetric(float64(a)/float64(n), "autos/op")
		})
	}
}

func BenchmarkBlindRotation(b *testing.B) {
	for _, p := range benchSets(b) {
		b.Run(p.Name(), func(b *testing.B) {
			k := benchKit(b, p)
			sc := NewScratch(p)
			x := k.enc.EncryptNew(1)
			combine(p.params, []*Ciphertext{x}, []int8{1}, 0, sc)
			for i := range sc.alpha {
				sc.alpha[i] = int32(x.A[i]>>uint(p.logQKS-trailingZeros(p.M))) | 1 // any odd α will do
				if p.Method() == MethodGINX {
					sc.alpha[i] &^= 1
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				switch p.Method() {
				case MethodSigned:
					blindRotateSigned(p.params, k.ek, sc.alpha, sc)
				case MethodLMKCDEY:
					blindRotateLMKCDEY(p.params, k.ek, sc.alpha, sc)
				default:
					blindRotateGINX(p.params, k.ek, sc.alpha, sc)
				}
			}
		})
	}
}

func BenchmarkKeyGen(b *testing.B) {
	for _, p := range benchSets(b) {
		b.Run(p.Name(), func(b *testing.B) {
			sk := testSecretKey(b, p, seedOf("bench"))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ek := testEvalKey(b, sk, seedOf(fmt.Sprint("pub", i)), seedOf(fmt.Sprint("noise", i)))
				br, total := ek.SizeBytes()
				b.ReportMetric(float64(br)/1e6, "BRkeyMB")
				b.ReportMetric(float64(total)/1e6, "evkeyMB")
				if i == 0 {
					b.StopTimer()
					data, err := ek.MarshalBinary()
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(len(data))/1e6, "fileMB")
					b.StartTimer()
				}
			}
		})
	}
}

// BenchmarkWindow is Figure 2: NAND time against the window w = 1..12 for
// LMKCDEY and Signed at STD128_LMKCDEY_G. Keys are generated per w and not
// cached (60-75 MB each).
func BenchmarkWindow(b *testing.B) {
	base, err := NewParams(STD128_LMKCDEY_G)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []Method{MethodSigned, MethodLMKCDEY} {
		for w := 1; w <= 12; w++ {
			p, err := base.WithMethod(m, w)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/w=%d", m, w), func(b *testing.B) {
				sk := testSecretKey(b, p, seedOf("win"))
				ev, err := NewEvaluator(p, testEvalKey(b, sk, seedOf("winp"), seedOf("winn")))
				if err != nil {
					b.Fatal(err)
				}
				enc, _ := NewEncryptor(sk)
				sc := NewScratch(p)
				x, y, out := enc.EncryptNew(1), enc.EncryptNew(0), NewCiphertext(p)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ev.NAND(x, y, out, sc)
				}
				b.StopTimer()
				a, n := sc.Automorphisms()
				b.ReportMetric(float64(a)/float64(n), "autos/op")
			})
		}
	}
}
