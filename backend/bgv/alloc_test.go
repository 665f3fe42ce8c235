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
