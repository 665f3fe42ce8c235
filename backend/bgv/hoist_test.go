package bgv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// TestAutomorphismHoisted: every Frobenius image of one ciphertext from
// one decomposition decrypts to the unhoisted Automorphism's slots (and the
// plaintext model's), fresh and after a product (lower level), with the
// same noise estimate, which bounds the measured noise.
func TestAutomorphismHoisted(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyM17Literal, ToyM257Literal, toyM257TwoAux} {
		k := newTestKit(t, lit)
		t.Run(lit.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(k.pr.M())))
			f := k.enc.Field()
			x, y := randomSlots(rng, k.enc), randomSlots(rng, k.enc)
			cx := k.encrypt(t, x)
			p := k.pr.NewCiphertext()
			if err := k.ev.Mul(cx, k.encrypt(t, y), p, k.sc); err != nil {
				t.Fatal(err)
			}
			xy := make([]uint64, len(x))
			for j := range xy {
				xy[j] = f.Mul(x[j], y[j])
			}
			h := k.pr.NewHoisted()
			for _, in := range []struct {
				name string
				ct   *Ciphertext
				v    []uint64
			}{{"fresh", cx, x}, {"product", p, xy}} {
				for _, lvl := range []int{in.ct.Level(), in.ct.Level() - 1} {
					if err := k.ev.Hoist(in.ct, lvl, h, k.sc); err != nil {
						t.Fatal(err)
					}
					ref := in.ct.State()
					ref = k.pr.DropState(ref, lvl)
					for j := 0; j < k.pr.SlotDegree(); j++ {
						u := ring.PowMod(2, uint64(j), uint64(k.pr.M()))
						got := k.pr.NewCiphertext()
						if err := k.ev.AutomorphismHoisted(h, u, got, k.sc); err != nil {
							t.Fatal(err)
						}
						want := make([]uint64, len(in.v))
						for s := range want {
							want[s] = f.Frobenius(in.v[s], j)
						}
						what := fmt.Sprintf("%s level %d frob %d", in.name, lvl, j)
						equalSlots(t, what, k.decrypt(got), want)
						un := k.pr.NewCiphertext()
						at := in.ct
						if lvl < in.ct.Level() {
							at = k.pr.NewCiphertext()
							copyTo(in.ct, at)
							if err := k.ev.SwitchToLevel(at, lvl, k.sc); err != nil {
								t.Fatal(err)
							}
						}
						if err := k.ev.Frobenius(at, j, un, k.sc); err != nil {
							t.Fatal(err)
						}
						equalSlots(t, what+" (unhoisted)", k.decrypt(un), want)
						if got.Level() != un.Level() || got.Noise != un.Noise {
							t.Fatalf("%s: hoisted state %v, unhoisted %v", what, got.State(), un.State())
						}
						if j > 0 && got.State() != k.pr.AutomorphismState(ref) {
							t.Fatalf("%s: state %v, AutomorphismState %v", what, got.State(), k.pr.AutomorphismState(ref))
						}
						k.checkNoiseGap(t, what, got, -1)
					}
				}
			}
		})
	}
}

// TestApplyLinearMaps: two linearized polynomials Σ_j c_j·x^(2^j) with
// random slot-wise constants (some absent) from one decomposition equal the
// plaintext model and the unhoisted sum of MulConst(Frobenius(x)); the
// planned states match the results and bound the noise.
func TestApplyLinearMaps(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyM17Literal, ToyM257Literal} {
		k := newTestKit(t, lit)
		t.Run(lit.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(6, uint64(k.pr.M())))
			f := k.enc.Field()
			d := k.pr.SlotDegree()
			var elems []uint64
			for j := 0; j < d; j++ {
				elems = append(elems, ring.PowMod(2, uint64(j), uint64(k.pr.M())))
			}
			vals := make([][][]uint64, 2)
			consts := make([][]*ConstPlaintext, 2)
			for m := range consts {
				vals[m] = make([][]uint64, d)
				consts[m] = make([]*ConstPlaintext, d)
				for j := range d {
					if (m+j)%3 == 2 {
						continue // absent term
					}
					vals[m][j] = randomSlots(rng, k.enc)
					c, err := k.enc.EncodeConst(vals[m][j])
					if err != nil {
						t.Fatal(err)
					}
					consts[m][j] = c
				}
			}
			lm, err := k.pr.NewLinearMaps(elems, consts)
			if err != nil {
				t.Fatal(err)
			}
			x := randomSlots(rng, k.enc)
			cx := k.encrypt(t, x)
			lvl, states, err := k.pr.LinearMapsPlan(cx.State(), lm)
			if err != nil {
				t.Fatal(err)
			}
			h := k.pr.NewHoisted()
			if err := k.ev.Hoist(cx, lvl, h, k.sc); err != nil {
				t.Fatal(err)
			}
			outs := []*Ciphertext{k.pr.NewCiphertext(), k.pr.NewCiphertext()}
			if err := k.ev.ApplyLinearMaps(h, lm, outs, k.sc); err != nil {
				t.Fatal(err)
			}
			for m, out := range outs {
				want := make([]uint64, len(x))
				for s := range want {
					for j := range d {
						if vals[m][j] != nil {
							want[s] ^= f.Mul(vals[m][j][s], f.Frobenius(x[s], j))
						}
					}
				}
				what := fmt.Sprintf("map %d", m)
				equalSlots(t, what, k.decrypt(out), want)
				if out.State() != states[m] {
					t.Fatalf("%s: state %v, planned %v", what, out.State(), states[m])
				}
				// Unhoisted reference.
				var acc *Ciphertext
				for j := range d {
					if consts[m][j] == nil {
						continue
					}
					fj, err := k.ev.MulConstNew(cx, consts[m][j])
					if err != nil {
						t.Fatal(err)
					}
					if j > 0 {
						fr := k.pr.NewCiphertext()
						if err := k.ev.Frobenius(cx, j, fr, k.sc); err != nil {
							t.Fatal(err)
						}
						if err := k.ev.MulConst(fr, consts[m][j], fj, k.sc); err != nil {
							t.Fatal(err)
						}
					}
					if acc == nil {
						acc = fj
					} else if err := k.ev.Add(acc, fj, acc, k.sc); err != nil {
						t.Fatal(err)
					}
				}
				equalSlots(t, what+" (unhoisted)", k.decrypt(acc), want)
				k.checkNoiseGap(t, what, out, -1)
			}
			// A map with the identity only, and missing keys.
			only, err := k.pr.NewLinearMaps([]uint64{1}, [][]*ConstPlaintext{{consts[0][0]}})
			if err != nil {
				t.Fatal(err)
			}
			if err := k.ev.ApplyLinearMaps(h, only, outs[:1], k.sc); err != nil {
				t.Fatal(err)
			}
			want := make([]uint64, len(x))
			for s := range want {
				want[s] = f.Mul(vals[0][0][s], x[s])
			}
			equalSlots(t, "identity map", k.decrypt(outs[0]), want)
			if err := NewEvaluator(k.pr, NewEvaluationKeySet(nil)).ApplyLinearMaps(h, lm, outs, k.sc); err == nil {
				t.Fatal("no error without automorphism keys")
			}
			if _, err := k.pr.NewLinearMaps(elems, [][]*ConstPlaintext{consts[0][:1]}); err == nil {
				t.Fatal("no error for a map with too few constants")
			}
		})
	}
}

// TestAddPlainConst: adding a constant lifted on the fly equals AddConst
// with the prepared constant, value and state, in place and not.
func TestAddPlainConst(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyM17Literal, ToyM257Literal} {
		k := newTestKit(t, lit)
		rng := rand.New(rand.NewPCG(7, uint64(k.pr.M())))
		x, v := randomSlots(rng, k.enc), randomSlots(rng, k.enc)
		cx := k.encrypt(t, x)
		p := k.pr.NewCiphertext()
		if err := k.ev.Mul(cx, cx, p, k.sc); err != nil {
			t.Fatal(err)
		}
		pc, err := k.enc.EncodePlainConst(v)
		if err != nil {
			t.Fatal(err)
		}
		cc, err := k.enc.EncodeConst(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []*Ciphertext{cx, p} {
			want := k.decrypt(in)
			for j := range want {
				want[j] ^= v[j]
			}
			got := k.pr.NewCiphertext()
			if err := k.ev.AddPlainConst(in, pc, got, k.sc); err != nil {
				t.Fatal(err)
			}
			ref := k.pr.NewCiphertext()
			if err := k.ev.AddConst(in, cc, ref); err != nil {
				t.Fatal(err)
			}
			equalSlots(t, lit.Name+" plain const", k.decrypt(got), want)
			if got.State() != ref.State() || got.State() != k.pr.AddPlainConstState(in.State(), pc) {
				t.Fatalf("%s: state %v, AddConst %v", lit.Name, got.State(), ref.State())
			}
			for i := range 2 {
				for r := range got.Value[i].Rows {
					for s := range got.Value[i].Rows[r] {
						if got.Value[i].Rows[r][s] != ref.Value[i].Rows[r][s] {
							t.Fatalf("%s: component %d row %d differs from AddConst", lit.Name, i, r)
						}
					}
				}
			}
			cp := k.pr.NewCiphertext()
			copyTo(in, cp)
			if err := k.ev.AddPlainConst(cp, pc, cp, k.sc); err != nil {
				t.Fatal(err)
			}
			equalSlots(t, lit.Name+" plain const in place", k.decrypt(cp), want)
		}
	}
}

// TestCheckKeys: present keys pass, a missing relinearization or
// automorphism key is named.
func TestCheckKeys(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	if err := k.ev.CheckKeys(true, 1, 2, 4, 16); err != nil {
		t.Fatal(err)
	}
	missing := uint64(0)
	for u := uint64(2); u < uint64(k.pr.M()); u++ {
		if _, ok := k.ev.keys.AutoKey(u); !ok {
			missing = u
			break
		}
	}
	if err := k.ev.CheckKeys(false, missing); err == nil {
		t.Fatalf("no error for the missing key of κ_%d", missing)
	}
	if err := NewEvaluator(k.pr, nil).CheckKeys(true); err == nil {
		t.Fatal("no error without keys")
	}
}
