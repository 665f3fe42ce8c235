package bgv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkScheme measures the per-operation costs at m = 8191 and m = 65537,
// at the top level and halfway down: encrypt (public key), decrypt (to bits,
// without math/big), multiply+relinearize, automorphism (one rotation, i.e.
// one key switch) and modulus switch (one level, including a ciphertext
// copy). It reports the memory of a ciphertext at that level and of one
// switching key. The m = 65537 set takes a few seconds to set up and about
// 1 GB for its two keys; run it alone with
//
//	go test ./backend/bgv -run '^$' -bench 'Scheme/m=65537' -benchtime 3x
func BenchmarkScheme(b *testing.B) {
	for _, lit := range []ParamsLiteral{M8191Literal, M65537Literal} {
		b.Run(fmt.Sprintf("m=%d", lit.M), func(b *testing.B) {
			pr := testParams(b, lit)
			smp := NewSamplerFromSeed([32]byte{3})
			kg := NewKeyGenerator(pr, smp)
			sk := kg.GenSecretKey()
			pk := kg.GenPublicKey(sk)
			ek, err := kg.GenEvaluationKeys(sk, []int{1}, false)
			if err != nil {
				b.Fatal(err)
			}
			en := NewPublicEncryptor(pr, pk, smp)
			de := NewDecryptor(pr, sk)
			ev := NewEvaluator(pr, ek)
			sc := pr.NewScratch()
			rng := rand.New(rand.NewPCG(1, 2))
			pt := NewBinaryPoly(pr.N())
			for i := range pt {
				pt[i] = rng.Uint64()
			}
			keyBytes := float64(len(pr.digits) * 2 * (len(pr.q) + len(pr.p)) * pr.N() * 8)
			g := pr.RotationElement(1)
			for _, level := range []int{pr.MaxLevel(), pr.MaxLevel() / 2} {
				name := "top"
				if level != pr.MaxLevel() {
					name = "half"
				}
				x, y := en.Encrypt(pt), en.Encrypt(pt)
				if err := ev.SwitchToLevel(x, level, sc); err != nil {
					b.Fatal(err)
				}
				if err := ev.SwitchToLevel(y, level, sc); err != nil {
					b.Fatal(err)
				}
				ctBytes := float64(2 * (level + 1) * pr.N() * 8)
				out := pr.NewCiphertext()
				b.Run(fmt.Sprintf("level=%s(%d)/Mul", name, level), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if err := ev.Mul(x, y, out, sc); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(ctBytes, "ct-bytes")
					b.ReportMetric(keyBytes, "key-bytes")
				})
				b.Run(fmt.Sprintf("level=%s(%d)/Automorphism", name, level), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if err := ev.Automorphism(x, g, out, sc); err != nil {
							b.Fatal(err)
						}
					}
				})
				if level > 0 {
					b.Run(fmt.Sprintf("level=%s(%d)/ModSwitch", name, level), func(b *testing.B) {
						b.ReportAllocs()
						for b.Loop() {
							copyTo(x, out)
							if err := ev.DropLevel(out, sc); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
				b.Run(fmt.Sprintf("level=%s(%d)/Decrypt", name, level), func(b *testing.B) {
					b.ReportAllocs()
					dst := NewBinaryPoly(pr.N())
					for b.Loop() {
						de.DecryptTo(x, dst, sc)
					}
				})
			}
			b.Run("Encrypt", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					en.Encrypt(pt)
				}
			})
		})
	}
}
