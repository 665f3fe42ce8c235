package tests

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/optimize"
	"github.com/hcc-fhe/hcc/runtime"
)

// The optimizer costs native gates through fhew's target (MUX: 2).
var _ optimize.GateCoster = fhew.LUTTarget{}

// fhewKit is one key pair and the runtime's view of its evaluator.
type fhewKit struct {
	p   fhew.Params
	sk  *fhew.SecretKey
	enc *fhew.Encryptor
	be  *fhew.Backend
}

var (
	kitMu   sync.Mutex
	kitsSet = map[string]*fhewKit{}
)

// kitFor generates (once per test binary) fresh keys for the named set.
func kitFor(t testing.TB, name string) *fhewKit {
	t.Helper()
	kitMu.Lock()
	defer kitMu.Unlock()
	if k, ok := kitsSet[name]; ok {
		return k
	}
	p, err := fhew.ParamsByName(name, true) // Toy sets: tests only
	if err != nil {
		t.Fatal(err)
	}
	sk, ev, enc := newFHEWKeys(t, p)
	k := &fhewKit{p: p, sk: sk, enc: enc, be: fhew.NewBackend(ev)}
	kitsSet[name] = k
	return k
}

// compileFHEW runs hcc eval's pipeline (optimize.ForLUTs against the key's
// LUT target, k <= 4) with verification after every pass.
func compileFHEW(t testing.TB, c *ir.Circuit, k *fhewKit) *ir.Circuit {
	t.Helper()
	pl := optimize.ForLUTs(k.be.LUTTarget(), 4)
	pl.Check = true
	d, err := pl.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// runEncrypted encrypts in, runs the compiled circuit d on threads workers,
// decrypts, and compares every output with the plaintext evaluation of the
// source circuit c. It returns the run's stats.
func runEncrypted(t testing.TB, c, d *ir.Circuit, k *fhewKit, in ir.Values, threads int) runtime.Stats {
	t.Helper()
	want, err := c.Eval(in)
	if err != nil {
		t.Fatal(err)
	}
	bits, err := c.PackInputs(in)
	if err != nil {
		t.Fatal(err)
	}
	outs, stats, err := runtime.Run(context.Background(), d, k.be, k.enc.EncryptBits(bits), runtime.Options{Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	gotBits, err := k.sk.DecryptBits(outs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.UnpackOutputs(gotBits)
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Outputs {
		name := c.Outputs[i].Name
		for e := range want[name] {
			if got[name][e].Cmp(want[name][e]) != 0 {
				t.Errorf("inputs %v: output %s[%d] = %v, want %v", in, name, e, got[name][e], want[name][e])
			}
		}
	}
	return stats
}

// randomInputs draws uniform values for every input of c.
func randomInputs(c *ir.Circuit, rng *rand.Rand) ir.Values {
	in := ir.Values{}
	for i := range c.Inputs {
		bus := &c.Inputs[i]
		lo, hi := bus.Range()
		span := new(big.Int).Sub(hi, lo)
		span.Add(span, big.NewInt(1))
		vals := make([]*big.Int, bus.Elems())
		for e := range vals {
			v := new(big.Int)
			for w := 0; w < bus.Width; w += 32 {
				v.Lsh(v, 32).Or(v, big.NewInt(int64(rng.Uint32())))
			}
			vals[e] = v.Mod(v, span).Add(v, lo)
		}
		in[bus.Name] = vals
	}
	return in
}

func bristol(t *testing.T, name string) *ir.Circuit {
	t.Helper()
	c, err := ir.ReadFile(filepath.Join(sharedCircuits(t), name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFHEWCircuits runs whole circuits encrypted at ToySigned (insecure,
// test only) and compares them with the plaintext simulator.
func TestFHEWCircuits(t *testing.T) {
	k := kitFor(t, "ToySigned")
	u64 := func(x uint64) []*big.Int { return []*big.Int{new(big.Int).SetUint64(x)} }
	reluSrc := []byte("import \"stdlib/relu.hdl\";\ncircuit relu(x: s16) -> (y: s16) { y = relu_s16(x); }\n")
	relu, err := lang.Compile("relu.hdl", reluSrc, lang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tour, err := lang.CompileFile("../examples/tour.hdl", lang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s16 := func(v int64) ir.Values { return ir.Values{"x": {big.NewInt(v)}} }
	cases := []struct {
		name string
		c    *ir.Circuit
		ins  []ir.Values // edge cases; one random vector is added
	}{
		{"adder64", bristol(t, "adder64"), []ir.Values{{"in0": u64(^uint64(0)), "in1": u64(1)}}},
		{"sub64", bristol(t, "sub64"), []ir.Values{{"in0": u64(0), "in1": u64(1)}}},
		{"zero_equal", bristol(t, "zero_equal"), []ir.Values{{"in0": u64(0)}, {"in0": u64(1 << 63)}}},
		{"relu_s16", relu, []ir.Values{s16(-32768), s16(-1), s16(0), s16(32767)}},
		{"tour", tour, []ir.Values{{
			"a": {big.NewInt(200)}, "b": {big.NewInt(100)}, "x": {big.NewInt(-5)},
			"v": {big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(4)},
		}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := compileFHEW(t, tc.c, k)
			ins := append(tc.ins, randomInputs(tc.c, rand.New(rand.NewPCG(uint64(i), 7))))
			for _, in := range ins {
				st := runEncrypted(t, tc.c, d, k, in, 2)
				t.Logf("%s: %d gates -> %d bootstraps; %v", tc.name, tc.c.Stats().Gates, k.be.LUTTarget().CircuitBootstraps(d), st)
			}
		})
	}
}

// TestFHEW128 runs one small circuit at hcc run's default 128-bit set.
func TestFHEW128(t *testing.T) {
	k := kitFor(t, "STD128_LOWFAIL_T")
	b := ir.NewBuilder("addmaj")
	x := b.Input("x", 4, false)
	y := b.Input("y", 4, false)
	// A 4-bit ripple-carry adder: XOR3 sums and majority carries, the
	// LUT mapper's two obvious wins.
	sum := make([]ir.NodeID, 5)
	carry := b.Const(false)
	for i := 0; i < 4; i++ {
		sum[i] = b.Xor(b.Xor(x[i], y[i]), carry)
		carry = b.Or(b.And(x[i], y[i]), b.And(carry, b.Xor(x[i], y[i])))
	}
	sum[4] = carry
	b.Output("s", 5, false, sum)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d := compileFHEW(t, c, k)
	if got := d.Stats().Count[ir.OpLUT]; got == 0 {
		t.Errorf("no LUT after mapping at %s: %v", k.p.Name(), d.Stats())
	}
	for _, v := range [][2]int64{{15, 15}, {9, 6}} {
		in := ir.Values{"x": {big.NewInt(v[0])}, "y": {big.NewInt(v[1])}}
		st := runEncrypted(t, c, d, k, in, 2)
		t.Log(fmt.Sprintf("%s: %d gates -> %d bootstraps; ", k.p.Name(), c.Stats().Gates, k.be.LUTTarget().CircuitBootstraps(d)), st)
	}
}

// newFHEWKeys makes a fresh secret key for p, its evaluation key, an
// evaluator and an encryptor (the four steps every encrypted test repeats).
func newFHEWKeys(t testing.TB, p fhew.Params) (*fhew.SecretKey, *fhew.Evaluator, *fhew.Encryptor) {
	t.Helper()
	sk, err := fhew.NewSecretKey(p)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := fhew.GenEvaluationKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := fhew.NewEvaluator(p, ek)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := fhew.NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	return sk, ev, enc
}
