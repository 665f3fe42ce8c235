package hcc

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// testAdder is a small HDL program: an 8-bit adder with carry and a
// signed comparison (both engines, a few dozen gates).
const testAdder = `
circuit add(a: u8, b: u8, x: s4) -> (sum: u8, carry: bit, neg: bit) {
	let w = a + b;
	sum = w;
	carry = (a + b) < a;
	neg = x < 0;
}
`

var (
	toyFHEW = Target{Engine: "fhew", Params: "ToySigned", Insecure: true}
	toyBGV  = Target{Engine: "bgv", Params: "ToyM257", Insecure: true}
)

// keyCache shares one key pair per target among tests (keygen is the
// slow part of a toy run).
var keyCache sync.Map

type keyPair struct {
	ck *ClientKey
	sk *ServerKey
}

func keysFor(t testing.TB, p *Program) (*ClientKey, *ServerKey) {
	t.Helper()
	id := p.Target().Engine + "/" + p.Target().Params
	if kp, ok := keyCache.Load(id); ok {
		return kp.(keyPair).ck, kp.(keyPair).sk
	}
	ck, sk, err := GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	keyCache.Store(id, keyPair{ck, sk})
	return ck, sk
}

func mustCompile(t testing.TB, src Source, tg Target) *Program {
	t.Helper()
	p, err := Compile(src, tg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// randomInputs draws n input sets for p.
func randomInputs(p *Program, n int, seed uint64) []Values {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]Values, n)
	for j := range out {
		v := Values{}
		for _, b := range p.Inputs() {
			elems := make([]*big.Int, b.Elems())
			for e := range elems {
				u := new(big.Int)
				for k := 0; k < b.Width; k++ {
					u.SetBit(u, k, uint(rng.Uint64()&1))
				}
				if b.Signed && u.Bit(b.Width-1) == 1 {
					u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(b.Width)))
				}
				elems[e] = u
			}
			v[b.Name] = elems
		}
		out[j] = v
	}
	return out
}

// checkAgainstPlain compares decrypted outputs with the plaintext
// evaluator of the source.
func checkAgainstPlain(t *testing.T, p *Program, ins, got []Values) {
	t.Helper()
	if len(got) != len(ins) {
		t.Fatalf("%d outputs for %d instances", len(got), len(ins))
	}
	for j := range ins {
		want, err := p.EvalPlain(ins[j])
		if err != nil {
			t.Fatal(err)
		}
		if FormatOutputs(p.Circuit(), got[j]) != FormatOutputs(p.Circuit(), want) {
			t.Errorf("instance %d: got\n%swant\n%s", j, FormatOutputs(p.Circuit(), got[j]), FormatOutputs(p.Circuit(), want))
		}
	}
}

// TestRoundTrip runs a single instance and a batch through both engines
// and compares with the plaintext evaluator.
func TestRoundTrip(t *testing.T) {
	for _, tg := range []Target{toyFHEW, toyBGV} {
		for _, n := range []int{1, 5, 20} {
			t.Run(fmt.Sprintf("%s/n=%d", tg.Engine, n), func(t *testing.T) {
				p := mustCompile(t, HDL(testAdder, ""), tg)
				ck, sk := keysFor(t, p)
				ins := randomInputs(p, n, uint64(n))
				cts, err := ck.Encrypt(p, ins...)
				if err != nil {
					t.Fatal(err)
				}
				if cts.Instances() != n {
					t.Fatalf("Instances() = %d, want %d", cts.Instances(), n)
				}
				var calls, last int
				out, st, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: 2, Progress: func(done, total int) { calls++; last = done - total }})
				if err != nil {
					t.Fatal(err)
				}
				if calls == 0 || last != 0 {
					t.Errorf("progress: %d calls, last done-total %d", calls, last)
				}
				wantRuns := 1
				if tg.Engine == "bgv" {
					wantRuns = (n + p.Slots() - 1) / p.Slots()
				}
				if st.Runs != wantRuns || st.Instances != n {
					t.Errorf("stats: %d runs, %d instances; want %d, %d", st.Runs, st.Instances, wantRuns, n)
				}
				got, err := ck.Decrypt(p, out)
				if err != nil {
					t.Fatal(err)
				}
				checkAgainstPlain(t, p, ins, got)
			})
		}
	}
}

// TestDeterministic: the same source and target give the same program hash.
func TestDeterministic(t *testing.T) {
	for _, tg := range []Target{toyFHEW, toyBGV} {
		a := mustCompile(t, HDL(testAdder, ""), tg)
		b := mustCompile(t, HDL(testAdder, ""), tg)
		if a.Hash() != b.Hash() {
			t.Errorf("%s: two compiles hash differently", tg.Engine)
		}
		tg2 := tg
		tg2.Style = StyleDepth
		if c := mustCompile(t, HDL(testAdder, ""), tg2); c.Hash() == a.Hash() {
			t.Errorf("%s: style does not change the hash", tg.Engine)
		}
	}
}

// TestInsecurePolicy: Toy sets need Target.Insecure, everywhere.
func TestInsecurePolicy(t *testing.T) {
	for _, tg := range []Target{{Engine: "fhew", Params: "ToySigned"}, {Engine: "bgv", Params: "ToyM257"}} {
		want := "parameter set " + tg.Params + " is insecure"
		if _, err := Compile(HDL(testAdder, ""), tg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile %v: %v, want %q", tg, err, want)
		}
		if _, _, err := GenerateKeysFor(tg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("GenerateKeysFor %v: %v, want %q", tg, err, want)
		}
	}
}

// TestMismatches: wrong key, other circuit, outputs as inputs are refused.
func TestMismatches(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	other := mustCompile(t, HDL(strings.Replace(testAdder, "a + b;", "a - b;", 1), ""), toyFHEW)
	ck, sk := keysFor(t, p)
	ck2, sk2, err := GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	cts, err := ck.Encrypt(p, randomInputs(p, 1, 1)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := Eval(ctx, p, sk2, cts, EvalOptions{}); err == nil || !strings.Contains(err.Error(), "wrong key") {
		t.Errorf("wrong key: %v", err)
	}
	if _, _, err := Eval(ctx, other, sk, cts, EvalOptions{}); err == nil || !strings.Contains(err.Error(), "not for input.hdl") {
		t.Errorf("other circuit: %v", err)
	}
	out, _, err := Eval(ctx, p, sk, cts, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Eval(ctx, p, sk, out, EvalOptions{}); err == nil || !strings.Contains(err.Error(), "not encrypted inputs") {
		t.Errorf("outputs as inputs: %v", err)
	}
	if _, err := ck2.Decrypt(p, out); err == nil || !strings.Contains(err.Error(), "wrong key") {
		t.Errorf("decrypt, wrong key: %v", err)
	}
	bgvProg := mustCompile(t, HDL(testAdder, ""), toyBGV)
	if _, err := ck.Encrypt(bgvProg, randomInputs(p, 1, 1)...); err == nil || !strings.Contains(err.Error(), "compiled for bgv/ToyM257") {
		t.Errorf("FHEW key, BGV program: %v", err)
	}
}

// TestSplitJoin: parts hold at most the asked instances (BGV: whole packs),
// evaluate separately and join to the same outputs as the whole.
func TestSplitJoin(t *testing.T) {
	for _, tg := range []Target{toyFHEW, toyBGV} {
		t.Run(tg.Engine, func(t *testing.T) {
			p := mustCompile(t, HDL(testAdder, ""), tg)
			ck, sk := keysFor(t, p)
			ins := randomInputs(p, 40, 3)
			cts, err := ck.Encrypt(p, ins...)
			if err != nil {
				t.Fatal(err)
			}
			per := 7
			if tg.Engine == "bgv" {
				if _, err := cts.Split(7); err == nil {
					t.Error("BGV split inside a pack: no error")
				}
				per = 2 * p.Slots()
			}
			parts, err := cts.Split(per)
			if err != nil {
				t.Fatal(err)
			}
			var outs []*Ciphertexts
			for _, part := range parts {
				if part.Instances() > per {
					t.Errorf("part of %d instances, max %d", part.Instances(), per)
				}
				o, _, err := Eval(context.Background(), p, sk, part, EvalOptions{Threads: 2})
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, o)
			}
			joined, err := JoinCiphertexts(outs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ck.Decrypt(p, joined)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstPlain(t, p, ins, got)
			if _, err := JoinCiphertexts([]*Ciphertexts{cts, joined}); err == nil {
				t.Error("joined inputs with outputs: no error")
			}
		})
	}
}
