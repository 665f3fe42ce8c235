package bgv

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// TestRotateSlotsM65537 decrypt-checks exact rotations of random GF(2^32)
// values in all 2048 slots at m = 65537 (TestRotateSlots covers m = 17 and
// 257; at m = 65537, as there, gcd(d, ℓ) != 1, so the wrapped slots need
// the Frobenius compensation and the mask). Fresh ciphertexts at the top
// level by 1, -1 and 700 slots, by 1 halfway down, and a product of two
// ciphertexts by 1; the noise estimate must bound the measured noise. It
// takes about 10 s and ~1.5 GB (the encoder, the relinearization key and
// six automorphism keys), so it runs only with HCC_BGV_DEEP=1:
//
//	HCC_BGV_DEEP=1 go test ./backend/bgv -run TestRotateSlotsM65537 -v -timeout 30m
//
// Result of one run: see docs/bgv-noise.md ("Exact slot rotation at m = 65537").
func TestRotateSlotsM65537(t *testing.T) {
	if os.Getenv("HCC_BGV_DEEP") != "1" {
		t.Skip("set HCC_BGV_DEEP=1 to decrypt-check RotateSlots at M65537 (~10 s, ~1.5 GB)")
	}
	t0 := time.Now()
	pr, enc := testEncoder(t, M65537Literal)
	ks := []int{1, -1, 700}
	smp := NewSamplerFromSeed([32]byte{43})
	kg := NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	ek := NewEvaluationKeySet(kg.GenRelinKey(sk))
	if err := kg.AddAutoKeys(sk, ek, pr.SlotRotationElements(ks...)); err != nil {
		t.Fatal(err)
	}
	ev, err := NewEvaluator(pr, ek).WithSlotRotations(enc, ks...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("encoder, %d keys and masks: %.1f s; %d slots of GF(2^%d), rotation Frobenius %d",
		len(pr.SlotRotationElements(ks...)), time.Since(t0).Seconds(), enc.Slots(), enc.Field().Degree(), enc.RotationFrobenius())
	if enc.RotationFrobenius() == 0 {
		t.Fatal("m = 65537 rotates exactly with one automorphism: nothing to test")
	}
	en := NewSymmetricEncryptor(pr, sk, smp)
	de := NewDecryptor(pr, sk)
	sc := pr.NewScratch()
	rng := rand.New(rand.NewPCG(43, 65537))
	l := enc.Slots()
	x := randomSlots(rng, enc)
	pt := NewBinaryPoly(pr.N())
	if err := enc.Encode(x, pt); err != nil {
		t.Fatal(err)
	}
	got := make([]uint64, l)
	out := pr.NewCiphertext()
	check := func(what string, x []uint64, r int) {
		t.Helper()
		enc.Decode(de.Decrypt(out), got)
		for j := range got {
			if want := x[((j+r)%l+l)%l]; got[j] != want {
				t.Fatalf("%s: slot %d = %#x, want %#x", what, j, got[j], want)
			}
		}
		measured, logQ := de.NoiseBits(out)
		est := pr.NoiseBound(out)
		t.Logf("%-22s level %2d: all %d slots correct; noise measured 2^%.1f, estimated 2^%.1f (+%.1f), Q = 2^%.1f",
			what, out.Level(), l, measured, est, est-measured, logQ)
		if measured > est {
			t.Errorf("%s: estimate 2^%.1f below measured 2^%.1f", what, est, measured)
		}
	}
	for _, level := range []int{pr.MaxLevel(), pr.MaxLevel() / 2} {
		cx := pr.NewCiphertext()
		if err := en.EncryptAtLevelTo(pt, level, cx); err != nil {
			t.Fatal(err)
		}
		for _, r := range ks {
			if level != pr.MaxLevel() && r != 1 {
				continue
			}
			t1 := time.Now()
			if err := ev.RotateSlots(cx, r, out, sc); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("rotate %d (%.2f s)", r, time.Since(t1).Seconds())
			check(what, x, r)
		}
	}
	// After a product (lower level, product noise): GF(2^32) products of
	// random values, rotated by 1.
	y := randomSlots(rng, enc)
	cx, cy := en.Encrypt(pt), pr.NewCiphertext()
	if err := enc.Encode(y, pt); err != nil {
		t.Fatal(err)
	}
	en.EncryptTo(pt, cy)
	prod := pr.NewCiphertext()
	if err := ev.Mul(cx, cy, prod, sc); err != nil {
		t.Fatal(err)
	}
	xy := make([]uint64, l)
	for j := range xy {
		xy[j] = enc.Field().Mul(x[j], y[j])
	}
	t1 := time.Now()
	if err := ev.RotateSlots(prod, 1, out, sc); err != nil {
		t.Fatal(err)
	}
	check(fmt.Sprintf("product, rotate 1 (%.2f s)", time.Since(t1).Seconds()), xy, 1)
}
