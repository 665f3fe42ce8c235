package fhew

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// testKit is a key set for one parameter set, generated once per test run.
type testKit struct {
	p   Params
	sk  *SecretKey
	ek  *EvaluationKey
	ev  *Evaluator
	enc *Encryptor
}

var (
	kitMu sync.Mutex
	kits  = map[string]*testKit{}
)

func seedOf(s string) Seed {
	var x Seed
	copy(x[:], s)
	return x
}

// kitFor returns the (cached) keys of lit; deterministic seeds keep failures
// reproducible.
func kitFor(t testing.TB, lit ParamsLiteral) *testKit {
	t.Helper()
	kitMu.Lock()
	defer kitMu.Unlock()
	if k, ok := kits[lit.Name]; ok {
		return k
	}
	p, err := NewParams(lit)
	if err != nil {
		t.Fatal(err)
	}
	sk := testSecretKey(t, p, seedOf("sk-"+lit.Name))
	ek := testEvalKey(t, sk, seedOf("pub-"+lit.Name), seedOf("noise-"+lit.Name))
	ev, err := NewEvaluator(p, ek)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	k := &testKit{p: p, sk: sk, ek: ek, ev: ev, enc: enc}
	kits[lit.Name] = k
	return k
}

func (k *testKit) decrypt(t testing.TB, c *Ciphertext) int {
	t.Helper()
	b, err := k.sk.Decrypt(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type gate2 struct {
	name string
	f    func(ev *Evaluator, a, b, out *Ciphertext, sc *Scratch)
	want func(a, b int) int
}

var gates2 = []gate2{
	{"AND", (*Evaluator).AND, func(a, b int) int { return a & b }},
	{"NAND", (*Evaluator).NAND, func(a, b int) int { return 1 ^ (a & b) }},
	{"OR", (*Evaluator).OR, func(a, b int) int { return a | b }},
	{"NOR", (*Evaluator).NOR, func(a, b int) int { return 1 ^ (a | b) }},
	{"XOR", (*Evaluator).XOR, func(a, b int) int { return a ^ b }},
	{"XNOR", (*Evaluator).XNOR, func(a, b int) int { return 1 ^ a ^ b }},
	{"ANDNY", (*Evaluator).ANDNY, func(a, b int) int { return a &^ b }},
}

// checkTruthTables runs every gate on every input combination reps times,
// on fresh encryptions. A set whose modelled gate failure is not negligible
// (STD128_LMKCDEY_G: about 2^-15) may decrypt one evaluation wrong by noise;
// there a wrong result is re-evaluated four times on fresh encryptions and
// must then be right every time. A wrong table entry is deterministic and
// still fails; two noise failures in a row (about 2^-30) would too.
func checkTruthTables(t *testing.T, lit ParamsLiteral, reps int) {
	k := kitFor(t, lit)
	sc := NewScratch(k.p)
	out := NewCiphertext(k.p)
	tmp := NewCiphertext(k.p)
	noisy := k.p.GateFailureLog2([]int{1, 1}) > -40 && !lit.Insecure
	expect := func(t *testing.T, name string, in []int, want int, eval func(cts []*Ciphertext)) {
		t.Helper()
		run := func() int {
			cts := make([]*Ciphertext, len(in))
			for i, b := range in {
				cts[i] = k.enc.EncryptNew(b)
			}
			eval(cts)
			return k.decrypt(t, out)
		}
		got := run()
		if got == want {
			return
		}
		if !noisy {
			t.Fatalf("%s%v = %d, want %d", name, in, got, want)
		}
		t.Logf("%s%v = %d, want %d (noise %d); re-checking", name, in, got, want, k.sk.NoiseOf(out, want))
		for r := 0; r < 4; r++ {
			if got := run(); got != want {
				t.Fatalf("%s%v = %d, want %d, again on re-check %d", name, in, got, want, r+1)
			}
		}
	}
	for _, g := range gates2 {
		t.Run(g.name, func(t *testing.T) {
			for r := 0; r < reps; r++ {
				for x := 0; x < 4; x++ {
					a, b := x&1, x>>1
					expect(t, g.name, []int{a, b}, g.want(a, b), func(c []*Ciphertext) { g.f(k.ev, c[0], c[1], out, sc) })
				}
			}
		})
	}
	t.Run("NOT", func(t *testing.T) {
		for a := 0; a < 2; a++ {
			k.ev.Not(k.enc.EncryptNew(a), out)
			if got := k.decrypt(t, out); got != 1-a {
				t.Fatalf("NOT(%d) = %d", a, got)
			}
		}
	})
	t.Run("MAJORITY/AND3/OR3/MUX", func(t *testing.T) {
		for r := 0; r < reps; r++ {
			for x := 0; x < 8; x++ {
				a, b, c := x&1, x>>1&1, x>>2&1
				in := []int{a, b, c}
				expect(t, "MAJ", in, (a&b)|(a&c)|(b&c), func(c []*Ciphertext) { k.ev.MAJORITY(c[0], c[1], c[2], out, sc) })
				expect(t, "AND3", in, a&b&c, func(c []*Ciphertext) { k.ev.AND3(c[0], c[1], c[2], out, sc, tmp) })
				expect(t, "OR3", in, a|b|c, func(c []*Ciphertext) { k.ev.OR3(c[0], c[1], c[2], out, sc, tmp) })
				want := c
				if a == 1 {
					want = b
				}
				expect(t, "MUX", in, want, func(c []*Ciphertext) { k.ev.MUX(c[0], c[1], c[2], out, sc, tmp) })
			}
		}
	})
}

func TestGatesToy(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToySigned, ToyGaussian, ToyGINX, ToySlots8} {
		t.Run(lit.Name, func(t *testing.T) { checkTruthTables(t, lit, 3) })
	}
}

func TestGatesSTD128(t *testing.T) {
	checkTruthTables(t, STD128_LMKCDEY_G, 1)
}

// TestSTD128Methods runs a few gates with every 128-bit set and method
// (keys are not cached: each key set takes 60-180 MB).
func TestSTD128Methods(t *testing.T) {
	base, err := NewParams(STD128_T)
	if err != nil {
		t.Fatal(err)
	}
	lmk, _ := base.WithMethod(MethodLMKCDEY, 10)
	ginx, _ := base.WithMethod(MethodGINX, 1)
	for _, lit := range []ParamsLiteral{STD128_T, lmk.Literal(), ginx.Literal(), STD128_GINX, STD128_LOWFAIL3_T} {
		t.Run(lit.Name, func(t *testing.T) {
			p, err := NewParams(lit)
			if err != nil {
				t.Fatal(err)
			}
			sk := testSecretKey(t, p, seedOf("m-"+lit.Name))
			ev, err := NewEvaluator(p, testEvalKey(t, sk, seedOf("mp-"+lit.Name), seedOf("mn-"+lit.Name)))
			if err != nil {
				t.Fatal(err)
			}
			enc, _ := NewEncryptor(sk)
			sc, out, tmp := NewScratch(p), NewCiphertext(p), NewCiphertext(p)
			for x := 0; x < 4; x++ {
				a, b := x&1, x>>1
				ev.NAND(enc.EncryptNew(a), enc.EncryptNew(b), out, sc)
				if got, err := sk.Decrypt(out); err != nil || got != 1^(a&b) {
					t.Fatalf("NAND(%d,%d) = %d (%v)", a, b, got, err)
				}
			}
			ev.AND3(enc.EncryptNew(1), enc.EncryptNew(1), enc.EncryptNew(1), out, sc, tmp)
			if got, err := sk.Decrypt(out); err != nil || got != 1 {
				t.Fatalf("AND3(1,1,1) = %d (%v)", got, err)
			}
		})
	}
}

// TestRandomChainToy feeds gate outputs back as inputs.
func TestRandomChainToy(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToySigned, ToyGaussian, ToyGINX} {
		t.Run(lit.Name, func(t *testing.T) { randomChain(t, lit, 200) })
	}
}

func randomChain(t *testing.T, lit ParamsLiteral, steps int) {
	if n := randomChainErrors(t, lit, steps); n != 0 {
		t.Fatalf("%d wrong gates in %d", n, steps)
	}
}

// randomChainErrors runs steps random two-input gates over four encrypted
// registers, each output overwriting a register, and returns how many gates
// decrypted wrong. After a wrong gate the chain goes on from the decrypted
// value, so one failure is counted once rather than poisoning the rest.
func randomChainErrors(t *testing.T, lit ParamsLiteral, steps int) int {
	k := kitFor(t, lit)
	rng := rand.New(rand.NewPCG(1, uint64(steps)))
	sc := NewScratch(k.p)
	const width = 4
	bits := make([]int, width)
	cts := make([]*Ciphertext, width)
	for i := range cts {
		bits[i] = rng.IntN(2)
		cts[i] = k.enc.EncryptNew(bits[i])
	}
	wrong := 0
	for s := 0; s < steps; s++ {
		g := gates2[rng.IntN(len(gates2))]
		i, j, d := rng.IntN(width), rng.IntN(width), rng.IntN(width)
		if i == j {
			j = (i + 1) % width
		}
		g.f(k.ev, cts[i], cts[j], cts[d], sc)
		want := g.want(bits[i], bits[j])
		got := k.decrypt(t, cts[d])
		if got != want {
			wrong++
			t.Logf("step %d: %s gave %d, want %d (noise %d)", s, g.name, got, want, k.sk.NoiseOf(cts[d], want))
		}
		bits[d] = got
	}
	return wrong
}

// TestConcurrentEvaluator shares one evaluator between goroutines, each
// with its own scratch (run with -race to check for shared mutable state).
func TestConcurrentEvaluator(t *testing.T) {
	k := kitFor(t, ToySigned)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g := 0; g < 2; g++ {
		x, y := k.enc.EncryptNew(g), k.enc.EncryptNew(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := NewScratch(k.p)
			out := NewCiphertext(k.p)
			for i := 0; i < 5; i++ {
				k.ev.AND(x, y, out, sc)
				if b, err := k.sk.Decrypt(out); err != nil || b != g {
					errs <- fmt.Errorf("goroutine %d: AND gave %d (%v)", g, b, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestAutomorphismCount compares the average number of automorphisms per
// bootstrap with Theorem 2 (Signed) and Theorem 1 (LMKCDEY),
// N/2(1-(1-1/w)e^{-2n/N}) resp. N(1-(1-1/w)e^{-n/N}) (M/4 in place of N/2
// when q < N). The theorems' expression is an upper estimate: a gap of g
// empty index sets costs ceil(g/w) automorphisms and the proof bounds that
// by g/w + (w-1)/w. So the measured average must lie in [0.75, 1.02] of it.
func TestAutomorphismCount(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToySigned, ToyGaussian} {
		k := kitFor(t, lit)
		sc := NewScratch(k.p)
		out := NewCiphertext(k.p)
		for i := 0; i < 40; i++ {
			k.ev.Bootstrap(k.enc.EncryptNew(i&1), out, sc)
		}
		a, n := sc.Automorphisms()
		got := float64(a) / float64(n)
		want := k.p.Noise().ExpectedAutomorphisms
		t.Logf("%s: %.1f automorphisms per bootstrap, theorem %.1f", lit.Name, got, want)
		if got < 0.75*want || got > 1.02*want {
			t.Errorf("%s: %.1f automorphisms per bootstrap, theorem says %.1f", lit.Name, got, want)
		}
	}
}

// testSecretKey is newSecretKeyFromSeed for tests (fails tb on error).
func testSecretKey(tb testing.TB, p Params, seed Seed) *SecretKey {
	tb.Helper()
	sk, err := newSecretKeyFromSeed(p, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return sk
}

// testEvalKey is genEvaluationKey for tests (fails tb on error).
func testEvalKey(tb testing.TB, sk *SecretKey, seed, noiseSeed Seed) *EvaluationKey {
	tb.Helper()
	ek, err := genEvaluationKey(sk, seed, noiseSeed)
	if err != nil {
		tb.Fatal(err)
	}
	return ek
}
