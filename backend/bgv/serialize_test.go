package bgv

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestSerializeRoundTrip: decoded keys and ciphertexts work like the
// originals (a product under the decoded relinearization key decrypts with
// the decoded secret key), and keys of another set are refused.
func TestSerializeRoundTrip(t *testing.T) {
	pr, enc := testEncoder(t, ToyM257Literal)
	rng := rand.New(rand.NewPCG(3, 4))
	smp := NewSamplerFromSeed([32]byte{9})
	kg := NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	ek, err := kg.GenEvaluationKeys(sk, []int{1}, false)
	if err != nil {
		t.Fatal(err)
	}
	skData, err := pr.MarshalSecretKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	ekData, err := pr.MarshalEvaluationKeys(ek)
	if err != nil {
		t.Fatal(err)
	}
	sk2, err := pr.ReadSecretKey(skData)
	if err != nil {
		t.Fatal(err)
	}
	ek2, err := pr.ReadEvaluationKeys(ekData)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ek2.GaloisElements(), ek.GaloisElements(); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("automorphism keys %v, want %v", got, want)
	}
	x, y := randomSlots(rng, enc), randomSlots(rng, enc)
	en := NewSymmetricEncryptor(pr, sk, smp)
	cx, cy := en.Encrypt(encodeT(t, enc, pr, x)), en.Encrypt(encodeT(t, enc, pr, y))
	roundTrip := func(ct *Ciphertext) *Ciphertext {
		t.Helper()
		data, err := pr.AppendCiphertext(nil, ct)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != pr.CiphertextSize(ct.Level()) {
			t.Fatalf("encoded %d bytes, CiphertextSize says %d", len(data), pr.CiphertextSize(ct.Level()))
		}
		out, err := pr.DecodeCiphertext(data)
		if err != nil {
			t.Fatal(err)
		}
		if out.Noise != ct.Noise || out.Level() != ct.Level() {
			t.Fatalf("noise or level changed: %+v at %d, want %+v at %d", out.Noise, out.Level(), ct.Noise, ct.Level())
		}
		return out
	}
	ev := NewEvaluator(pr, ek2)
	prod, err := ev.MulNew(roundTrip(cx), roundTrip(cy))
	if err != nil {
		t.Fatal(err)
	}
	low := pr.CopyCiphertext(prod)
	if err := ev.SwitchToLevel(low, 0, pr.NewScratch()); err != nil {
		t.Fatal(err)
	}
	want := make([]uint64, enc.Slots())
	for j := range want {
		want[j] = enc.Field().Mul(x[j], y[j])
	}
	got := make([]uint64, enc.Slots())
	for _, ct := range []*Ciphertext{prod, low} {
		enc.Decode(NewDecryptor(pr, sk2).Decrypt(roundTrip(ct)), got)
		equalSlots(t, "decoded product", got, want)
	}

	other := testParams(t, ToyM17Literal)
	if _, err := other.ReadSecretKey(skData); !errors.Is(err, ErrFormat) {
		t.Errorf("ToyM257 secret key read as ToyM17: %v", err)
	}
	if _, err := pr.ReadEvaluationKeys(skData); !errors.Is(err, ErrFormat) {
		t.Errorf("secret key read as evaluation keys: %v", err)
	}
}

// TestSerializeDamage: every truncation and every flipped byte of a key is
// rejected; a ciphertext of the wrong size or with an unreduced residue too.
func TestSerializeDamage(t *testing.T) {
	pr := testParams(t, ToyM17Literal)
	kg := NewKeyGenerator(pr, NewSamplerFromSeed([32]byte{2}))
	sk := kg.GenSecretKey()
	skData, err := pr.MarshalSecretKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	ekData, err := pr.MarshalEvaluationKeys(NewEvaluationKeySet(kg.GenRelinKey(sk)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		read func([]byte) error
	}{
		{"secret", skData, func(b []byte) error { _, err := pr.ReadSecretKey(b); return err }},
		{"eval", ekData, func(b []byte) error { _, err := pr.ReadEvaluationKeys(b); return err }},
	} {
		if err := tc.read(tc.data); err != nil {
			t.Fatalf("%s: intact key: %v", tc.name, err)
		}
		for n := 0; n < len(tc.data); n += 1 + n/64 {
			if err := tc.read(tc.data[:n]); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s truncated to %d of %d bytes: %v", tc.name, n, len(tc.data), err)
			}
		}
		for i := 0; i < len(tc.data); i += 1 + i/64 {
			b := append([]byte(nil), tc.data...)
			b[i] ^= 0x04
			if err := tc.read(b); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s byte %d flipped: %v", tc.name, i, err)
			}
		}
	}
	ct := NewSymmetricEncryptor(pr, sk, NewSamplerFromSeed([32]byte{3})).Encrypt(NewBinaryPoly(pr.N()))
	data, err := pr.AppendCiphertext(nil, ct)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{data[:len(data)-1], append(append([]byte(nil), data...), 0), data[:0]} {
		if _, err := pr.DecodeCiphertext(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("ciphertext of %d bytes: %v", len(bad), err)
		}
	}
	b := append([]byte(nil), data...)
	for i := len(b) - rowWidth(pr.q[ct.Level()]); i < len(b); i++ {
		b[i] = 0xff // the last residue, now >= its prime
	}
	if _, err := pr.DecodeCiphertext(b); !errors.Is(err, ErrFormat) {
		t.Errorf("unreduced residue: %v", err)
	}
}

// TestEncryptAtLevel: inputs encrypted at every level t of ToyM257 survive
// DepthAvailableAt(t) squarings (the shared-noise case the depth check
// assumes), and LevelFor picks the lowest level that supports a depth.
func TestEncryptAtLevel(t *testing.T) {
	pr, enc := testEncoder(t, ToyM257Literal)
	smp := NewSamplerFromSeed([32]byte{5})
	kg := NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	ev := NewEvaluator(pr, NewEvaluationKeySet(kg.GenRelinKey(sk)))
	en, de := NewSymmetricEncryptor(pr, sk, smp), NewDecryptor(pr, sk)
	pub := NewPublicEncryptor(pr, kg.GenPublicKey(sk), smp)
	rng := rand.New(rand.NewPCG(8, 9))
	bits := make([]uint8, enc.Slots())
	pt := NewBinaryPoly(pr.N())
	prev := -1
	for level := 0; level <= pr.MaxLevel(); level++ {
		depth := pr.DepthAvailableAt(level)
		if depth < prev {
			t.Errorf("DepthAvailableAt(%d) = %d < %d at level %d", level, depth, prev, level-1)
		}
		prev = depth
		if got := pr.LevelFor(depth); got > level || pr.DepthAvailableAt(got) < depth {
			t.Errorf("LevelFor(%d) = %d (depth there %d), level %d has it", depth, got, pr.DepthAvailableAt(got), level)
		}
		for j := range bits {
			bits[j] = uint8(rng.Uint64() & 1)
		}
		if err := enc.EncodeBits(bits, pt); err != nil {
			t.Fatal(err)
		}
		x, err := en.EncryptAtLevel(pt, level)
		if err != nil {
			t.Fatal(err)
		}
		if x.Level() != level {
			t.Fatalf("encrypted at level %d, got %d", level, x.Level())
		}
		got := make([]uint8, enc.Slots())
		xp, err := pub.EncryptAtLevel(pt, level)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.DecodeBits(de.Decrypt(xp), got); err != nil || xp.Level() != level || string(got) != string(bits) {
			t.Fatalf("public-key encryption at level %d: %v, level %d, slots %v, want %v", level, err, xp.Level(), got, bits)
		}
		for k := 0; k <= depth; k++ {
			if err := enc.DecodeBits(de.Decrypt(x), got); err != nil {
				t.Fatalf("level %d, %d squarings: %v", level, k, err)
			}
			for j := range bits {
				if got[j] != bits[j] {
					t.Fatalf("level %d, %d squarings: slot %d = %d, want %d", level, k, j, got[j], bits[j])
				}
			}
			if k < depth {
				if x, err = ev.MulNew(x, x); err != nil {
					t.Fatalf("level %d, squaring %d of %d: %v", level, k+1, depth, err)
				}
			}
		}
		t.Logf("level %d: depth %d", level, depth)
	}
	if _, err := en.EncryptAtLevel(pt, pr.MaxLevel()+1); err == nil {
		t.Error("level above the top: no error")
	}
}
