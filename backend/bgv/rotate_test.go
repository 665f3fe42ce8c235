package bgv

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// rotateKit returns the test kit's keys plus the automorphism keys and
// masks of exact slot rotations by ks.
func rotateKit(t *testing.T, lit ParamsLiteral, ks []int) (*testKit, *Evaluator) {
	t.Helper()
	k := newTestKit(t, lit)
	kg := NewKeyGenerator(k.pr, NewSamplerFromSeed([32]byte{8}))
	ek := NewEvaluationKeySet(k.ev.keys.Relin)
	if err := kg.AddAutoKeys(k.sk, ek, k.pr.SlotRotationElements(ks...)); err != nil {
		t.Fatal(err)
	}
	ev, err := NewEvaluator(k.pr, ek).WithSlotRotations(k.enc, ks...)
	if err != nil {
		t.Fatal(err)
	}
	return k, ev
}

// TestRotateSlots: exact rotations of random GF(2^d) values (no Frobenius
// twist on the wrapped slots) for several k at m = 17 and 257, against the
// plaintext model, fresh, in place and after a product; the estimate bounds
// the measured noise.
func TestRotateSlots(t *testing.T) {
	for _, tc := range []struct {
		lit ParamsLiteral
		ks  []int
	}{
		{ToyM17Literal, []int{1, -1, 3}},
		{ToyM257Literal, []int{1, 2, 5, 8, 15, -3, 17}},
	} {
		k, ev := rotateKit(t, tc.lit, tc.ks)
		t.Run(fmt.Sprintf("m=%d", k.pr.M()), func(t *testing.T) {
			if k.enc.RotationFrobenius() == 0 {
				t.Fatal("the set rotates exactly with one automorphism: nothing to test")
			}
			rng := rand.New(rand.NewPCG(41, uint64(k.pr.M())))
			l := k.enc.Slots()
			f := k.enc.Field()
			rotated := func(v []uint64, r int) []uint64 {
				w := make([]uint64, l)
				for j := range w {
					w[j] = v[((j+r)%l+l)%l]
				}
				return w
			}
			x := randomSlots(rng, k.enc)
			cx := k.encrypt(t, x)
			out := k.pr.NewCiphertext()
			for _, r := range tc.ks {
				if err := ev.RotateSlots(cx, r, out, k.sc); err != nil {
					t.Fatal(err)
				}
				equalSlots(t, fmt.Sprintf("rotate by %d", r), k.decrypt(out), rotated(x, r))
				k.checkNoise(t, fmt.Sprintf("rotate %d", r), out)
			}
			// Zero and full turns are copies.
			for _, r := range []int{0, l} {
				if err := ev.RotateSlots(cx, r, out, k.sc); err != nil {
					t.Fatal(err)
				}
				equalSlots(t, fmt.Sprintf("rotate by %d", r), k.decrypt(out), x)
			}
			// After a product (lower level, larger noise), in place, twice.
			y := randomSlots(rng, k.enc)
			p := k.pr.NewCiphertext()
			if err := k.ev.Mul(cx, k.encrypt(t, y), p, k.sc); err != nil {
				t.Fatal(err)
			}
			want := make([]uint64, l)
			for j := range want {
				want[j] = f.Mul(x[j], y[j])
			}
			r0 := tc.ks[0]
			for step := 1; step <= 2; step++ {
				if err := ev.RotateSlots(p, r0, p, k.sc); err != nil {
					t.Fatal(err)
				}
				want = rotated(want, r0)
				equalSlots(t, fmt.Sprintf("product rotated %d times", step), k.decrypt(p), want)
				k.checkNoise(t, fmt.Sprintf("prod rot %d", step), p)
			}
			// A rotated ciphertext multiplies on (noise estimate still valid).
			if err := k.ev.Mul(p, cx, p, k.sc); err != nil {
				t.Fatal(err)
			}
			for j := range want {
				want[j] = f.Mul(want[j], x[j])
			}
			equalSlots(t, "rotated times fresh", k.decrypt(p), want)
			k.checkNoise(t, "rot·fresh", p)

			// Missing masks and keys are reported.
			if err := k.ev.RotateSlots(cx, 1, out, k.sc); err == nil || !strings.Contains(err.Error(), "no wrap mask") {
				t.Errorf("without masks: err = %v", err)
			}
			bare, err := NewEvaluator(k.pr, NewEvaluationKeySet(k.ev.keys.Relin)).WithSlotRotations(k.enc, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := bare.RotateSlots(cx, 1, out, k.sc); err == nil || !strings.Contains(err.Error(), "no key") {
				t.Errorf("without keys: err = %v", err)
			}
		})
	}
}

// TestRotateSlotsBudget: a long chain of rotations ends in ErrNoiseBudget,
// never in a wrong result.
func TestRotateSlotsBudget(t *testing.T) {
	k, ev := rotateKit(t, ToyM17Literal, []int{1})
	x := []uint64{0x35, 0xc1}
	ct := k.encrypt(t, x)
	steps := 0
	for ; ; steps++ {
		err := ev.RotateSlots(ct, 1, ct, k.sc)
		if errors.Is(err, ErrNoiseBudget) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		x[0], x[1] = x[1], x[0]
		equalSlots(t, fmt.Sprintf("rotation %d", steps), k.decrypt(ct), x)
		k.checkNoiseGap(t, fmt.Sprintf("rotation %d", steps), ct, -1)
	}
	if steps < 5 {
		t.Errorf("budget refused after %d rotations", steps)
	}
	t.Logf("%d rotations before the budget ran out", steps)
}

// TestSlotRotationElements: the listed elements are h^k and h^(k-ℓ), and
// their automorphisms move slot j+k to slot j (h^k: exactly unless wrapped;
// h^(k-ℓ): exactly if wrapped), checked on the encoder's plaintexts.
func TestSlotRotationElements(t *testing.T) {
	pr, enc := testEncoder(t, ToyM257Literal)
	rng := rand.New(rand.NewPCG(43, 44))
	l := enc.Slots()
	x := randomSlots(rng, enc)
	pt := encodeT(t, enc, pr, x)
	for _, k := range []int{1, 6, 15} {
		a, b := pr.slotRotationPair(k)
		elems := pr.SlotRotationElements(k, k+l)
		if len(elems) != 2 || !(elems[0] == min(a, b) && elems[1] == max(a, b)) {
			t.Fatalf("k=%d: elements %v, want {%d, %d}", k, elems, a, b)
		}
		got := make([]uint64, l)
		for _, e := range []struct {
			u       uint64
			wrapped bool
		}{{a, false}, {b, true}} {
			rot := NewBinaryPoly(pr.N())
			AutomorphismBinary(pt, e.u, pr.M(), rot)
			enc.Decode(rot, got)
			for j := range got {
				if (j+k >= l) == e.wrapped && got[j] != x[(j+k)%l] {
					t.Errorf("k=%d, κ_%d: slot %d = %#x, want %#x", k, e.u, j, got[j], x[(j+k)%l])
				}
			}
		}
	}
}

// TestRotateSlotsAllocs: RotateSlots allocates nothing with scratch.
func TestRotateSlotsAllocs(t *testing.T) {
	k, ev := rotateKit(t, ToyM257Literal, []int{5})
	rng := rand.New(rand.NewPCG(45, 46))
	x := k.encrypt(t, randomSlots(rng, k.enc))
	out := k.pr.NewCiphertext()
	if a := testing.AllocsPerRun(5, func() {
		if err := ev.RotateSlots(x, 5, out, k.sc); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("RotateSlots: %.1f allocations per run, want 0", a)
	}
}

// TestExactRotationSets: where gcd(d, ℓ) = 1 (m = 8191) one automorphism
// per rotation is listed; where it is not (m = 17, 257) two.
func TestExactRotationSets(t *testing.T) {
	for _, tc := range []struct {
		lit   ParamsLiteral
		exact bool
	}{{ToyM17Literal, false}, {ToyM257Literal, false}, {M8191Literal, true}} {
		pr := testParams(t, tc.lit)
		if pr.exactRotation() != tc.exact {
			t.Errorf("m=%d: exact rotation %v, want %v", pr.M(), pr.exactRotation(), tc.exact)
		}
		want := 4
		if tc.exact {
			want = 2
		}
		if pr.Slots() < 3 {
			want /= 2 // k = 2 ≡ 0 for two slots
		}
		if got := pr.SlotRotationElements(1, 2, 0); len(got) != want {
			t.Errorf("m=%d: elements %v, want %d of them", pr.M(), got, want)
		}
	}
}
