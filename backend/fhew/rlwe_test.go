package fhew

import (
	"math"
	"math/rand/v2"
	"testing"
)

// rlweDecrypt returns the centred coefficients of b + a·z for an NTT-domain
// RLWE ciphertext.
func rlweDecrypt(p *params, sk *SecretKey, b, a []uint32) []int64 {
	nt := p.ntt
	t := make([]uint32, p.N)
	nt.MulCoeffs(a, sk.zNTT, t)
	nt.Add(t, b, t)
	nt.Inverse(t, t)
	out := make([]int64, p.N)
	for i, x := range t {
		out[i] = nt.Centered(x)
	}
	return out
}

// rlweEncrypt returns an NTT-domain RLWE encryption of the coefficient-domain m.
func rlweEncrypt(p *params, sk *SecretKey, m []uint32, r *prng) (b, a []uint32) {
	nt := p.ntt
	b, a = make([]uint32, p.N), make([]uint32, p.N)
	r.uniformMod(p.Q, a)
	e := make([]uint32, p.N)
	for i := range e {
		e[i] = nt.AddMod(nt.FromInt64(r.gaussian(p.gauss)), m[i])
	}
	nt.Forward(e, e)
	nt.MulCoeffs(a, sk.zNTT, b)
	nt.Sub(e, b, b)
	return b, a
}

func randomMessage(p *params, rng *rand.Rand) ([]uint32, []int64) {
	m := make([]uint32, p.N)
	mi := make([]int64, p.N)
	for i := range m {
		v := int64(rng.IntN(8)-4) * int64(p.Q/8)
		mi[i] = v
		m[i] = p.ntt.FromInt64(v)
	}
	return m, mi
}

func maxErr(got, want []int64, Q int64) float64 {
	worst := 0.0
	for i := range got {
		d := (got[i] - want[i]) % Q
		if d > Q/2 {
			d -= Q
		} else if d < -Q/2 {
			d += Q
		}
		worst = max(worst, math.Abs(float64(d)))
	}
	return worst
}

// dotStd is the predicted standard deviation (in Q units) of one ⊙.
func dotStd(p Params) float64 {
	m := p.Noise()
	products := 2*float64(p.n) + m.ExpectedAutomorphisms
	if p.lit.Method == MethodGINX {
		products = 8 * float64(p.n)
	}
	return math.Sqrt(m.BlindRotation/products) * float64(p.Q)
}

func TestDecompose(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToySigned, STD128_GINX, STD128_LMKCDEY_G} {
		p, err := NewParams(lit)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		in := make([]uint32, p.N)
		for i := range in {
			in[i] = uint32(rng.IntN(int(p.Q)))
		}
		in[0], in[1], in[2] = 0, p.Q-1, p.Q/2
		dig := make([][]uint32, p.dg)
		for i := range dig {
			dig[i] = make([]uint32, p.N)
		}
		decompose(p.params, in, dig)
		halfLow := int64(1) << uint(p.dropped*p.logBg) / 2
		for j := range in {
			var sum int64
			for r := range dig {
				d := p.ntt.Centered(dig[r][j])
				if d < -int64(1)<<uint(p.logBg-1) || d > int64(1)<<uint(p.logBg-1) {
					t.Fatalf("%s: digit %d of coefficient %d is %d", lit.Name, r, j, d)
				}
				sum += d * int64(p.gadget[r])
			}
			diff := (sum - p.ntt.Centered(in[j])) % int64(p.Q)
			if diff > int64(p.Q)/2 {
				diff -= int64(p.Q)
			} else if diff < -int64(p.Q)/2 {
				diff += int64(p.Q)
			}
			if diff > halfLow || diff < -halfLow {
				t.Fatalf("%s: coefficient %d recomposes with error %d > %d", lit.Name, j, diff, halfLow)
			}
		}
	}
}

// TestExternalProductMonomial multiplies RLWE(m) by RGSW(Y^k) and checks
// the result decrypts to m·Y^k within 6σ of the predicted ⊛ noise.
func TestExternalProductMonomial(t *testing.T) {
	k := kitFor(t, ToySigned)
	p := k.p.params
	rng := rand.New(rand.NewPCG(5, 6))
	r := newPRNG(seedOf("ext"))
	sc := NewScratch(k.p)
	for trial := 0; trial < 4; trial++ {
		m, mi := randomMessage(p, rng)
		b, a := rlweEncrypt(p, k.sk, m, r)
		s := int32(rng.IntN(9) - 4)
		key := make([]uint32, p.rgswLen())
		buf := make([]uint32, p.N)
		zm := make([]uint32, p.N)
		msg := brkMessage(p, s, trial&1, buf)
		p.ntt.MulCoeffs(msg, k.sk.zNTT, zm)
		encryptRowsNTT(p, k.sk.zNTT, [][]uint32{msg, zm}, key, r, r, make([]uint32, p.N))
		copy(sc.accB, b)
		copy(sc.accA, a)
		externalProduct(p, sc.accB, sc.accA, key, sc)
		got := rlweDecrypt(p, k.sk, sc.accB, sc.accA)
		// want = m·X^(±s·2N/M)
		e := int(s) << uint(p.yShift)
		if trial&1 == 1 {
			e = -e
		}
		shifted := make([]uint32, p.N)
		p.ntt.MulByMonomial(m, e, shifted)
		want := make([]int64, p.N)
		for i, x := range shifted {
			want[i] = p.ntt.Centered(x)
		}
		_ = mi
		bound := 6 * math.Sqrt(2) * dotStd(k.p) * 2 // input noise is small; 2 ⊙ per product
		if err := maxErr(got, want, int64(p.Q)); err > bound {
			t.Fatalf("trial %d: error %.0f > bound %.0f", trial, err, bound)
		}
	}
}

// TestAutomorphismKeySwitch applies Auto_t for every stored key and checks
// the result decrypts to m(X^t).
func TestAutomorphismKeySwitch(t *testing.T) {
	k := kitFor(t, ToyGaussian) // LMKCDEY: has ak_{-g} too
	p := k.p.params
	rng := rand.New(rand.NewPCG(7, 8))
	r := newPRNG(seedOf("auto"))
	sc := NewScratch(k.p)
	for u := 0; u <= p.window; u++ {
		m, _ := randomMessage(p, rng)
		b, a := rlweEncrypt(p, k.sk, m, r)
		copy(sc.accB, b)
		copy(sc.accA, a)
		tg := p.autoGalois(u)
		automorphism(p, sc.accB, sc.accA, p.autoIndex[u], k.ek.AutoKey(tg), sc)
		got := rlweDecrypt(p, k.sk, sc.accB, sc.accA)
		mt := make([]uint32, p.N)
		p.ntt.AutomorphismCoeff(m, tg, mt)
		want := make([]int64, p.N)
		for i, x := range mt {
			want[i] = p.ntt.Centered(x)
		}
		bound := 6 * 2 * dotStd(k.p)
		if err := maxErr(got, want, int64(p.Q)); err > bound {
			t.Fatalf("u=%d (t=%d): error %.0f > bound %.0f", u, tg, err, bound)
		}
	}
}
