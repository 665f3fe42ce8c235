package bgv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkScheme measures the per-operation costs at m = 8191 and m = 65537,
// at the top level and halfway down: encrypt (public key), decrypt (to bits,
// without math/big), multiply+relinearize, automorphism (one rotation, i.e.
// one key switch), multiplication by a prepared slot-wise constant and
// modulus switch (one level, including a ciphertext
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
			c := pr.NewConstPlaintext(pt)
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
				b.Run(fmt.Sprintf("level=%s(%d)/MulConst", name, level), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if err := ev.MulConst(x, c, out, sc); err != nil {
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
			b.Run("EncryptTo", func(b *testing.B) {
				b.ReportAllocs()
				ct := pr.NewCiphertext()
				en.EncryptTo(pt, ct) // the first write allocates the rows
				for b.Loop() {
					en.EncryptTo(pt, ct)
				}
			})
		})
	}
}

// BenchmarkRotateSlots measures the exact GF(2^d) rotation (two key
// switches and a mask product) at m = 65537 at the top level and halfway
// down; setup builds the encoder and two rotation keys (~30 s, ~1 GB):
//
//	go test ./backend/bgv -run '^$' -bench RotateSlots -benchtime 2x
func BenchmarkRotateSlots(b *testing.B) {
	pr, enc := testEncoder(b, M65537Literal)
	smp := NewSamplerFromSeed([32]byte{4})
	kg := NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	ek := NewEvaluationKeySet(nil)
	if err := kg.AddAutoKeys(sk, ek, pr.SlotRotationElements(1)); err != nil {
		b.Fatal(err)
	}
	ev, err := NewEvaluator(pr, ek).WithSlotRotations(enc, 1)
	if err != nil {
		b.Fatal(err)
	}
	en := NewSymmetricEncryptor(pr, sk, smp)
	sc := pr.NewScratch()
	rng := rand.New(rand.NewPCG(1, 2))
	pt := NewBinaryPoly(pr.N())
	if err := enc.Encode(randomSlots(rng, enc), pt); err != nil {
		b.Fatal(err)
	}
	for _, level := range []int{pr.MaxLevel(), pr.MaxLevel() / 2} {
		x := en.Encrypt(pt)
		if err := ev.SwitchToLevel(x, level, sc); err != nil {
			b.Fatal(err)
		}
		out := pr.NewCiphertext()
		b.Run(fmt.Sprintf("m=%d/level=%d", pr.M(), level), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := ev.RotateSlots(x, 1, out, sc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
