package bgv

import (
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"
)

var testEncoderCache = map[string]*Encoder{}

func testEncoder(t testing.TB, lit ParamsLiteral) (*Params, *Encoder) {
	t.Helper()
	pr := testParams(t, lit)
	if e, ok := testEncoderCache[lit.Name]; ok {
		return pr, e
	}
	e, err := NewEncoder(pr)
	if err != nil {
		t.Fatal(err)
	}
	testEncoderCache[lit.Name] = e
	return pr, e
}

var slotSets = []ParamsLiteral{ToyM17Literal, ToyM257Literal, M8191Literal}

// TestFactorization: the F_j are distinct, irreducible of degree d, and
// their product is Φ_m mod 2.
func TestFactorization(t *testing.T) {
	for _, lit := range slotSets {
		pr, e := testEncoder(t, lit)
		t.Run(fmt.Sprintf("m=%d", pr.M()), func(t *testing.T) {
			prod := []uint64{1}
			seen := map[uint64]bool{}
			for _, f := range e.Factors() {
				if !irreducible(f) || 63-bits.LeadingZeros64(f) != pr.SlotDegree() || seen[f] {
					t.Fatalf("factor %#x: irreducible=%v degree=%d duplicate=%v", f, irreducible(f), 63-bits.LeadingZeros64(f), seen[f])
				}
				seen[f] = true
				next := make([]uint64, len(prod)+1)
				for k := 0; k < 64; k++ {
					if f>>uint(k)&1 == 1 {
						xorShifted(next, prod, k)
					}
				}
				prod = next
			}
			for i := 0; i < len(prod)*64; i++ {
				want := uint64(0)
				if i < pr.M() {
					want = 1
				}
				if prod[i>>6]>>uint(i&63)&1 != want {
					t.Fatalf("product of factors differs from Φ_m at X^%d", i)
				}
			}
		})
	}
}

func randomSlots(rng *rand.Rand, e *Encoder) []uint64 {
	v := make([]uint64, e.Slots())
	for j := range v {
		v[j] = rng.Uint64() & (uint64(1)<<uint(e.Field().Degree()) - 1)
	}
	return v
}

func encodeT(t *testing.T, e *Encoder, pr *Params, v []uint64) BinaryPoly {
	t.Helper()
	a := NewBinaryPoly(pr.N())
	if err := e.Encode(v, a); err != nil {
		t.Fatal(err)
	}
	return a
}

func equalSlots(t *testing.T, what string, got, want []uint64) {
	t.Helper()
	for j := range want {
		if got[j] != want[j] {
			t.Fatalf("%s: slot %d = %#x, want %#x", what, j, got[j], want[j])
		}
	}
}

func TestSlotsArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, lit := range slotSets {
		pr, e := testEncoder(t, lit)
		k := e.Field()
		t.Run(fmt.Sprintf("m=%d", pr.M()), func(t *testing.T) {
			x, y := randomSlots(rng, e), randomSlots(rng, e)
			a, b := encodeT(t, e, pr, x), encodeT(t, e, pr, y)
			got := make([]uint64, e.Slots())
			e.Decode(a, got)
			equalSlots(t, "round trip", got, x)

			sum := append(BinaryPoly(nil), a...)
			sum.Add(b)
			e.Decode(sum, got)
			want := make([]uint64, e.Slots())
			for j := range want {
				want[j] = x[j] ^ y[j]
			}
			equalSlots(t, "sum", got, want)

			e.Decode(MulBinary(a, b, pr.M()), got)
			for j := range want {
				want[j] = k.Mul(x[j], y[j])
			}
			equalSlots(t, "product", got, want)

			// Frobenius κ_2 squares each slot.
			c := NewBinaryPoly(pr.N())
			AutomorphismBinary(a, 2, pr.M(), c)
			e.Decode(c, got)
			for j := range want {
				want[j] = k.Mul(x[j], x[j])
			}
			equalSlots(t, "κ_2", got, want)

			// κ_h rotates left by one; the wrapped slot gets Frobenius^r.
			AutomorphismBinary(a, e.SlotGenerator(), pr.M(), c)
			e.Decode(c, got)
			l := e.Slots()
			for j := 0; j < l-1; j++ {
				want[j] = x[j+1]
			}
			want[l-1] = k.Frobenius(x[0], e.RotationFrobenius())
			equalSlots(t, fmt.Sprintf("κ_%d (r = %d)", e.SlotGenerator(), e.RotationFrobenius()), got, want)

			// Bits rotate exactly, for any r.
			bits := make([]uint8, l)
			for j := range bits {
				bits[j] = uint8(rng.IntN(2))
			}
			if err := e.EncodeBits(bits, a); err != nil {
				t.Fatal(err)
			}
			AutomorphismBinary(a, e.SlotGenerator(), pr.M(), c)
			out := make([]uint8, l)
			if err := e.DecodeBits(c, out); err != nil {
				t.Fatal(err)
			}
			for j := range out {
				if out[j] != bits[(j+1)%l] {
					t.Fatalf("bit rotation: slot %d = %d, want %d", j, out[j], bits[(j+1)%l])
				}
			}
		})
	}
}

func TestSlotGenerator(t *testing.T) {
	for _, tc := range []struct {
		lit   ParamsLiteral
		exact bool
	}{{ToyM17Literal, false}, {ToyM257Literal, false}, {M8191Literal, true}} {
		pr, e := testEncoder(t, tc.lit)
		if (e.RotationFrobenius() == 0) != tc.exact {
			t.Errorf("m=%d: RotationFrobenius() = %d, want exact rotation = %v", pr.M(), e.RotationFrobenius(), tc.exact)
		}
		// h generates Z_m^*/<2>: its powers h^0..h^(ℓ-1) lie in distinct cosets.
		m := uint64(pr.M())
		coset := map[uint64]bool{}
		x := uint64(1)
		for j := 0; j < e.Slots(); j++ {
			// canonical coset representative: the minimum of x·2^k.
			rep, y := x, x
			for k := 0; k < pr.SlotDegree(); k++ {
				y = 2 * y % m
				rep = min(rep, y)
			}
			if coset[rep] {
				t.Fatalf("m=%d: h^%d is in an earlier coset", pr.M(), j)
			}
			coset[rep] = true
			x = x * e.SlotGenerator() % m
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	pr, e := testEncoder(t, ToyM17Literal)
	a := NewBinaryPoly(pr.N())
	if err := e.Encode([]uint64{1}, a); err == nil {
		t.Error("Encode accepted 1 value for 2 slots")
	}
	if err := e.Encode([]uint64{1, 1 << 8}, a); err == nil {
		t.Error("Encode accepted a value outside GF(2^8)")
	}
	if err := e.EncodeBits([]uint8{0, 2}, a); err == nil {
		t.Error("EncodeBits accepted 2")
	}
	if err := e.Encode([]uint64{0, 7}, a); err != nil {
		t.Fatal(err)
	}
	if err := e.DecodeBits(a, make([]uint8, 2)); err == nil {
		t.Error("DecodeBits accepted a slot holding 7")
	}
}

// TestSlotsThroughDoubleCRT ties the layers together at m = 257: encode,
// lift to R_Q in evaluation form, multiply and rotate there, come back to
// coefficients, reduce mod 2 and decode.
func TestSlotsThroughDoubleCRT(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	pr, e := testEncoder(t, ToyM257Literal)
	r := pr.RingQ()
	k := e.Field()
	x, y := randomSlots(rng, e), randomSlots(rng, e)
	lift := func(v []uint64) *Poly {
		a := encodeT(t, e, pr, v)
		c := make([]int64, pr.N())
		for i := range c {
			c[i] = int64(a.Bit(i))
		}
		p := r.NewPoly(r.MaxLevel())
		r.SetSmall(c, p, r.NewScratch())
		return p
	}
	a, b := lift(x), lift(y)
	prod, rot := r.NewPoly(r.MaxLevel()), r.NewPoly(r.MaxLevel())
	r.Mul(a, b, prod)
	if err := r.Automorphism(prod, e.SlotGenerator(), rot); err != nil {
		t.Fatal(err)
	}
	coeffs := r.BigCoeffs(rot)
	plain := NewBinaryPoly(pr.N())
	two := big.NewInt(2)
	m := new(big.Int)
	for i, c := range coeffs {
		if m.Mod(c, two).Sign() != 0 {
			plain.flip(i)
		}
	}
	got := make([]uint64, e.Slots())
	e.Decode(plain, got)
	l := e.Slots()
	want := make([]uint64, l)
	for j := range want {
		want[j] = k.Mul(x[(j+1)%l], y[(j+1)%l])
	}
	want[l-1] = k.Frobenius(want[l-1], e.RotationFrobenius())
	equalSlots(t, "κ_h(a·b) through double-CRT", got, want)
}
