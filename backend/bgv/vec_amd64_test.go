//go:build amd64 && !purego

package bgv

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// vecPrimes are moduli of every size class the kernels meet: tiny, the
// auxiliary and chain sizes, and the largest allowed (61 bits).
func vecPrimes(t *testing.T) []uint64 {
	var out []uint64
	for _, b := range []int{5, 20, 37, 45, 59, maxModulusBits} {
		ps, err := ring.GeneratePrimes(b, 2, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ps...)
	}
	return out
}

// withoutVec runs f on the pure-Go kernels.
func withoutVec(f func()) {
	hasVec = false
	defer func() { hasVec = true }()
	f()
}

// TestMulModVec: the Barrett vector products (and the Karatsuba tensor row)
// against big.Int, on random residues with 0, 1, q-1 and q-2 mixed in, for
// lengths with a Go tail.
func TestMulModVec(t *testing.T) {
	if !hasVec {
		t.Skip("no AVX-512F/DQ")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for _, q := range vecPrimes(t) {
		md := newModulus(q)
		n := 8*17 + 5
		a, b, c := edgeRow(rng, n, q), edgeRow(rng, n, q), edgeRow(rng, n, q)
		a[1], b[2], a[5], b[5] = 1, q-2, q-1, q-1
		bq := new(big.Int).SetUint64(q)
		ref := func(x, y, z uint64) uint64 {
			v := new(big.Int).Mul(new(big.Int).SetUint64(x), new(big.Int).SetUint64(y))
			v.Add(v, new(big.Int).SetUint64(z))
			return v.Mod(v, bq).Uint64()
		}
		out, acc := make([]uint64, n), append([]uint64(nil), c...)
		md.mulVec(a, b, out)
		md.mulAddVec(a, b, acc)
		o0, o1 := make([]uint64, n), make([]uint64, n)
		md.mulAdd2Vec(a, b, c, o0, o1, false)
		a0, a1 := append([]uint64(nil), b...), append([]uint64(nil), c...)
		md.mulAdd2Vec(a, b, c, a0, a1, true)
		d0, d1, d2 := make([]uint64, n), make([]uint64, n), make([]uint64, n)
		k := tensorVec(a, b, c, a0, d0, d1, d2, &md.bar) // (a + b·Y)(c + a0·Y), a0 an arbitrary row
		for i := range k {
			w0, w2 := ref(a[i], c[i], 0), ref(b[i], a0[i], 0)
			w1 := ref(a[i], a0[i], ref(b[i], c[i], 0))
			if d0[i] != w0 || d1[i] != w1 || d2[i] != w2 {
				t.Fatalf("q=%d: tensor entry %d = (%d, %d, %d), want (%d, %d, %d)", q, i, d0[i], d1[i], d2[i], w0, w1, w2)
			}
		}
		for i := range n {
			if w := ref(a[i], b[i], 0); out[i] != w || o0[i] != w {
				t.Fatalf("q=%d: %d·%d = %d (mul2 %d), want %d", q, a[i], b[i], out[i], o0[i], w)
			}
			if w := ref(a[i], b[i], c[i]); acc[i] != w {
				t.Fatalf("q=%d: %d·%d + %d = %d, want %d", q, a[i], b[i], c[i], acc[i], w)
			}
			if w := ref(a[i], c[i], 0); o1[i] != w {
				t.Fatalf("q=%d: mul2 second product %d, want %d", q, o1[i], w)
			}
			if w0, w1 := ref(a[i], b[i], b[i]), ref(a[i], c[i], c[i]); a0[i] != w0 || a1[i] != w1 {
				t.Fatalf("q=%d: mul2 add (%d, %d), want (%d, %d)", q, a0[i], a1[i], w0, w1)
			}
		}
	}
}

// TestScaleDownFinishVec: the vector finish equals the pure-Go one and the
// exact value (big.Int).
func TestScaleDownFinishVec(t *testing.T) {
	if !hasVec {
		t.Skip("no AVX-512F/DQ")
	}
	rng := rand.New(rand.NewPCG(33, 34))
	pr := testParams(t, M8191Literal)
	lv := &pr.rns[pr.MaxLevel()]
	for _, sd := range []*scaleDown{lv.modDown, lv.drop, lv.toZero} {
		for j, md := range sd.dstPrimes {
			n := pr.N()
			x, d := edgeRow(rng, n, md.Q), edgeRow(rng, n, md.Q)
			got, want := make([]uint64, n), make([]uint64, n)
			sd.finish(j, x, d, got)
			withoutVec(func() { sd.finish(j, x, d, want) })
			bq := new(big.Int).SetUint64(md.Q)
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("prime %d, entry %d: vector %d != Go %d", md.Q, k, got[k], want[k])
				}
				// x·D^-1 - δ'·2·D^-1 mod q, exactly.
				e := new(big.Int).Mul(new(big.Int).SetUint64(x[k]), new(big.Int).SetUint64(sd.inv[j]))
				e.Sub(e, new(big.Int).Mul(new(big.Int).SetUint64(d[k]), new(big.Int).SetUint64(sd.twoInv[j])))
				if w := e.Mod(e, bq).Uint64(); got[k] != w {
					t.Fatalf("prime %d, entry %d: %d, want %d", md.Q, k, got[k], w)
				}
			}
		}
	}
}

// TestBaseConverterVec: vector base conversion equals the pure-Go one bit
// for bit and the exact centred CRT lift (big.Int), for 1 to 8 source
// primes of the M65537-sized chain and of M8191 (n = 8190: vector rows
// with a Go tail).
func TestBaseConverterVec(t *testing.T) {
	if !hasVec {
		t.Skip("no AVX-512F/DQ")
	}
	rng := rand.New(rand.NewPCG(35, 36))
	step := uint64(65537) << 16
	big59, err := ring.GeneratePrimes(59, step, 12, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mods []modulus
	for _, p := range big59 {
		mods = append(mods, newModulus(p))
	}
	for _, n := range []int{64 * 9, 8190} {
		for _, alpha := range []int{1, 2, 7, 8} {
			for _, halve := range []bool{false, true} {
				t.Run(fmt.Sprintf("n=%d/alpha=%d/halve=%v", n, alpha, halve), func(t *testing.T) {
					src, dst := mods[:alpha], mods[alpha:]
					bc := newBaseConverter(src, dst, halve)
					in := make([][]uint64, alpha)
					for i := range in {
						in[i] = edgeRow(rng, n, src[i].Q)
					}
					rows := func(c int) [][]uint64 {
						r := make([][]uint64, c)
						for i := range r {
							r[i] = make([]uint64, n)
						}
						return r
					}
					got, want := rows(len(dst)), rows(len(dst))
					bc.convert(in, got, rows(alpha), make([]float64, n))
					withoutVec(func() { bc.convert(in, want, rows(alpha), make([]float64, n)) })
					for j := range got {
						for k := range got[j] {
							if got[j][k] != want[j][k] {
								t.Fatalf("target %d, coefficient %d: vector %d != Go %d", j, k, got[j][k], want[j][k])
							}
						}
					}
					qs := big.NewInt(1)
					for _, m := range src {
						qs.Mul(qs, new(big.Int).SetUint64(m.Q))
					}
					half := new(big.Int).Rsh(qs, 1)
					c := big.NewInt(1)
					if halve {
						c.ModInverse(big.NewInt(2), qs)
					}
					for k := 0; k < n; k += 37 {
						// x = CRT of the residues, times c, centred.
						x := new(big.Int)
						for i, m := range src {
							qi := new(big.Int).SetUint64(m.Q)
							hat := new(big.Int).Quo(qs, qi)
							inv := new(big.Int).ModInverse(new(big.Int).Mod(hat, qi), qi)
							term := new(big.Int).Mul(new(big.Int).SetUint64(in[i][k]), inv)
							term.Mod(term, qi).Mul(term, hat)
							x.Add(x, term)
						}
						x.Mul(x, c).Mod(x, qs)
						if x.Cmp(half) > 0 {
							x.Sub(x, qs)
						}
						// Within 2^-40·Q_S of ±Q_S/2 either representative is valid.
						alt := new(big.Int).Sub(x, qs)
						if x.Sign() < 0 {
							alt.Add(x, qs)
						}
						near := new(big.Int).Abs(new(big.Int).Sub(new(big.Int).Abs(x), half))
						boundary := near.Lsh(near, 40).Cmp(qs) < 0
						for j, m := range dst {
							pm := new(big.Int).SetUint64(m.Q)
							w := new(big.Int).Mod(x, pm).Uint64()
							if boundary && got[j][k] == new(big.Int).Mod(alt, pm).Uint64() {
								continue
							}
							if got[j][k] != w {
								t.Fatalf("target %d, coefficient %d: %d, want the centred lift %d", j, k, got[j][k], w)
							}
						}
					}
				})
			}
		}
	}
}

// TestSchemeVecMatchesGo: with the same seeds, parameters built on the
// vector kernels and on the pure-Go ones produce the same keys and the same
// ciphertexts, bit for bit, through multiplication, an automorphism and a
// modulus switch: the kernels change no value, so the noise measurements
// (docs/bgv-noise.md) carry over.
func TestSchemeVecMatchesGo(t *testing.T) {
	if !hasVec {
		t.Skip("no AVX-512F/DQ")
	}
	run := func(lit ParamsLiteral) []*Ciphertext {
		pr, err := NewParams(lit)
		if err != nil {
			t.Fatal(err)
		}
		smp := NewSamplerFromSeed([32]byte{9})
		kg := NewKeyGenerator(pr, smp)
		sk := kg.GenSecretKey()
		pk := kg.GenPublicKey(sk)
		ek, err := kg.GenEvaluationKeys(sk, []int{1}, false)
		if err != nil {
			t.Fatal(err)
		}
		en, ev, sc := NewPublicEncryptor(pr, pk, smp), NewEvaluator(pr, ek), pr.NewScratch()
		pt := NewBinaryPoly(pr.N())
		rng := rand.New(rand.NewPCG(61, 62))
		for i := range pt {
			pt[i] = rng.Uint64()
		}
		x, y := en.Encrypt(pt), en.Encrypt(pt)
		prod, rot := pr.NewCiphertext(), pr.NewCiphertext()
		if err := ev.Mul(x, y, prod, sc); err != nil {
			t.Fatal(err)
		}
		if err := ev.Automorphism(x, pr.RotationElement(1), rot, sc); err != nil {
			t.Fatal(err)
		}
		if err := ev.DropLevel(y, sc); err != nil {
			t.Fatal(err)
		}
		return []*Ciphertext{prod, rot, y}
	}
	for _, lit := range []ParamsLiteral{ToyM257Literal, M8191Literal} {
		vec := run(lit)
		var ref []*Ciphertext
		withoutVec(func() { ref = run(lit) })
		for o, ct := range vec {
			for c := range ct.Value {
				for i, row := range ct.Value[c].Rows {
					for j, v := range row {
						if w := ref[o].Value[c].Rows[i][j]; v != w {
							t.Fatalf("%s: output %d component %d row %d entry %d: vector %d != Go %d", lit.Name, o, c, i, j, v, w)
						}
					}
				}
			}
		}
	}
}

// edgeRow is a random row with the extreme residues 0 and q-1 mixed in.
func edgeRow(rng *rand.Rand, n int, q uint64) []uint64 {
	r := randomRow(rng, n, q)
	for i := 0; i < n; i += 7 {
		r[i] = q - 1
	}
	for i := 3; i < n; i += 11 {
		r[i] = 0
	}
	return r
}
