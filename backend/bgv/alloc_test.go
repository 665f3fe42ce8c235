package bgv

import (
	"math/rand/v2"
	"testing"
)

// TestKernelAllocs: multiply+relinearize, key switching (automorphism),
// modulus switching and decryption allocate nothing with explicit scratch.
func TestKernelAllocs(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	rng := rand.New(rand.NewPCG(11, 12))
	x, y := k.encrypt(t, randomSlots(rng, k.enc)), k.encrypt(t, randomSlots(rng, k.enc))
	out := k.pr.NewCiphertext()
	pt := NewBinaryPoly(k.pr.N())
	galois := k.pr.RotationElement(1)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Mul", func() {
			if err := k.ev.Mul(x, y, out, k.sc); err != nil {
				t.Fatal(err)
			}
		}},
		{"Automorphism", func() {
			if err := k.ev.Automorphism(x, galois, out, k.sc); err != nil {
				t.Fatal(err)
			}
		}},
		{"DropLevel", func() {
			copyTo(x, out)
			if err := k.ev.DropLevel(out, k.sc); err != nil {
				t.Fatal(err)
			}
		}},
		{"Add", func() {
			if err := k.ev.Add(x, y, out, k.sc); err != nil {
				t.Fatal(err)
			}
		}},
		{"DecryptTo", func() { k.de.DecryptTo(x, pt, k.sc) }},
	} {
		if a := testing.AllocsPerRun(5, tc.f); a != 0 {
			t.Errorf("%s: %.1f allocations per run, want 0", tc.name, a)
		}
	}
}

// TestEncryptToAllocs: EncryptTo and EncryptAtLevelTo allocate nothing once
// the Encryptor has its buffers, reuse a dirty ciphertext at another level
// without leaking its contents (same seed, same ciphertext as Encrypt into a
// fresh one), and decrypt correctly.
func TestEncryptToAllocs(t *testing.T) {
	pr, enc := testEncoder(t, ToyM257Literal)
	kg := NewKeyGenerator(pr, NewSamplerFromSeed([32]byte{21}))
	sk := kg.GenSecretKey()
	pk := kg.GenPublicKey(sk)
	de := NewDecryptor(pr, sk)
	rng := rand.New(rand.NewPCG(21, 22))
	want := randomSlots(rng, enc)
	pt := NewBinaryPoly(pr.N())
	if err := enc.Encode(want, pt); err != nil {
		t.Fatal(err)
	}
	mk := map[string]func(*Sampler) *Encryptor{
		"public":    func(s *Sampler) *Encryptor { return NewPublicEncryptor(pr, pk, s) },
		"symmetric": func(s *Sampler) *Encryptor { return NewSymmetricEncryptor(pr, sk, s) },
	}
	for name, newEn := range mk {
		for _, level := range []int{pr.MaxLevel(), 1} {
			ref, err := newEn(NewSamplerFromSeed([32]byte{5})).EncryptAtLevel(pt, level)
			if err != nil {
				t.Fatal(err)
			}
			en := newEn(NewSamplerFromSeed([32]byte{5}))
			dirty := pr.NewCiphertext()
			for _, p := range dirty.Value {
				for _, row := range p.Rows {
					for j := range row {
						row[j] = uint64(j) % 3
					}
				}
			}
			setLevel(dirty, pr.MaxLevel()-level)
			if err := en.EncryptAtLevelTo(pt, level, dirty); err != nil {
				t.Fatal(err)
			}
			if dirty.Level() != level || dirty.Noise != ref.Noise {
				t.Fatalf("%s level %d: got level %d noise %+v, want %+v", name, level, dirty.Level(), dirty.Noise, ref.Noise)
			}
			for k := range ref.Value {
				for i, row := range ref.Value[k].Rows {
					for j, v := range row {
						if dirty.Value[k].Rows[i][j] != v {
							t.Fatalf("%s level %d: c_%d row %d entry %d = %d, want %d", name, level, k, i, j, dirty.Value[k].Rows[i][j], v)
						}
					}
				}
			}
			got := make([]uint64, enc.Slots())
			enc.Decode(de.Decrypt(dirty), got)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s level %d: slot %d decrypts to %d, want %d", name, level, i, got[i], want[i])
				}
			}
			if a := testing.AllocsPerRun(5, func() { en.EncryptTo(pt, dirty) }); a != 0 {
				t.Errorf("%s: EncryptTo %.1f allocations per run, want 0", name, a)
			}
			if a := testing.AllocsPerRun(5, func() {
				if err := en.EncryptAtLevelTo(pt, level, dirty); err != nil {
					t.Fatal(err)
				}
			}); a != 0 {
				t.Errorf("%s: EncryptAtLevelTo %.1f allocations per run, want 0", name, a)
			}
		}
	}
}

// TestCiphertextRowsOnDemand: a ciphertext from NewCiphertext holds the rows
// of the first level written to it, grows when a result needs a higher
// level (keeping correct results), and then moves between levels without
// allocating.
func TestCiphertextRowsOnDemand(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	rng := rand.New(rand.NewPCG(31, 32))
	xv, yv := randomSlots(rng, k.enc), randomSlots(rng, k.enc)
	x, y := k.encrypt(t, xv), k.encrypt(t, yv)
	want := make([]uint64, len(xv))
	for i := range want {
		want[i] = xv[i] ^ yv[i]
	}
	pt := NewBinaryPoly(k.pr.N())
	if err := k.enc.Encode(xv, pt); err != nil {
		t.Fatal(err)
	}
	ct := k.pr.NewCiphertext()
	if err := k.en.EncryptAtLevelTo(pt, 1, ct); err != nil {
		t.Fatal(err)
	}
	if c := cap(ct.Value[0].Rows); c != 2 {
		t.Fatalf("encrypted at level 1: room for %d rows, want 2", c)
	}
	equalSlots(t, "level-1 encryption", k.decrypt(ct), xv)
	if err := k.ev.Add(x, y, ct, k.sc); err != nil { // top level: grows
		t.Fatal(err)
	}
	if ct.Level() != k.pr.MaxLevel() || cap(ct.Value[1].Rows) != k.pr.MaxLevel()+1 {
		t.Fatalf("after a top-level result: level %d, room for %d rows", ct.Level(), cap(ct.Value[1].Rows))
	}
	equalSlots(t, "sum into the grown ciphertext", k.decrypt(ct), want)
	low := k.pr.NewCiphertext()
	copyTo(x, low)
	if err := k.ev.SwitchToLevel(low, 1, k.sc); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(5, func() {
		if err := k.ev.Add(x, y, ct, k.sc); err != nil {
			t.Fatal(err)
		}
		copyTo(low, ct)
	}); a != 0 {
		t.Errorf("moving a grown ciphertext between levels: %.1f allocations per run, want 0", a)
	}
	equalSlots(t, "copy at level 1", k.decrypt(ct), xv)
}
