package bgv

import (
	"math/rand/v2"
	"testing"
)

// TestSchemeM257 checks encryption, decryption, addition and tensoring
// multiplication against the plaintext model (slot-wise GF(2^16)
// arithmetic) at m = 257, with public-key and symmetric encryption.
func TestSchemeM257(t *testing.T) {
	pr, enc := testEncoder(t, ToyM257Literal)
	rng := rand.New(rand.NewPCG(15, 16))
	smp := NewSamplerFromSeed([32]byte{1})
	kg := NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	pk := kg.GenPublicKey(sk)
	dec := NewDecryptor(pr, sk)
	ev := NewEvaluator(pr, nil)
	k := enc.Field()
	for _, tc := range []struct {
		name string
		en   *Encryptor
	}{{"public", NewPublicEncryptor(pr, pk, smp)}, {"symmetric", NewSymmetricEncryptor(pr, sk, smp)}} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := randomSlots(rng, enc), randomSlots(rng, enc)
			cx := tc.en.Encrypt(encodeT(t, enc, pr, x))
			cy := tc.en.Encrypt(encodeT(t, enc, pr, y))
			got := make([]uint64, enc.Slots())
			enc.Decode(dec.Decrypt(cx), got)
			equalSlots(t, "decrypt", got, x)
			noise, logQ := dec.NoiseBits(cx)
			t.Logf("fresh noise 2^%.1f, Q = 2^%.1f", noise, logQ)
			// μ + 2e + 2e·(stuff): a fresh ciphertext is far below 2^20 at m = 257.
			if noise > 20 {
				t.Errorf("fresh noise 2^%.1f is implausibly large", noise)
			}

			sum, err := ev.AddNew(cx, cy)
			if err != nil {
				t.Fatal(err)
			}
			enc.Decode(dec.Decrypt(sum), got)
			want := make([]uint64, enc.Slots())
			for j := range want {
				want[j] = x[j] ^ y[j]
			}
			equalSlots(t, "add", got, want)

			prod, err := ev.TensorNew(cx, cy)
			if err != nil {
				t.Fatal(err)
			}
			enc.Decode(dec.Decrypt(prod), got)
			for j := range want {
				want[j] = k.Mul(x[j], y[j])
			}
			equalSlots(t, "mul", got, want)
			pn, _ := dec.NoiseBits(prod)
			t.Logf("product noise 2^%.1f", pn)
			if pn > 2*noise+12 {
				t.Errorf("product noise 2^%.1f exceeds (fresh noise)^2·2^12 = 2^%.1f", pn, 2*noise+12)
			}

			// Adding a degree-2 and a degree-1 ciphertext keeps the larger degree.
			mixed, err := ev.AddNew(prod, cx)
			if err != nil {
				t.Fatal(err)
			}
			enc.Decode(dec.Decrypt(mixed), got)
			for j := range want {
				want[j] = k.Mul(x[j], y[j]) ^ x[j]
			}
			equalSlots(t, "mul+add", got, want)
			if _, err := ev.TensorNew(prod, cx); err == nil {
				t.Error("TensorNew accepted a degree-2 operand")
			}
		})
	}
}

func TestSamplerDistributions(t *testing.T) {
	smp := NewSamplerFromSeed([32]byte{2})
	const n = 1 << 16
	var count [3]int
	for _, v := range smp.ternary(n) {
		count[v+1]++
	}
	for i, c := range count {
		if c < n/3-600 || c > n/3+600 { // about 5 standard deviations
			t.Errorf("ternary value %d drawn %d times of %d", i-1, c, n)
		}
	}
	var sum, sq float64
	for _, v := range smp.gaussian(n) {
		sum += float64(v)
		sq += float64(v * v)
	}
	if mean, variance := sum/n, sq/n; mean < -0.1 || mean > 0.1 || variance < 10 || variance > 11 {
		t.Errorf("error distribution: mean %.3f, variance %.3f; want 0 and 10.5", mean, variance)
	}
}
