package hcc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

var toyWide = Target{Engine: "fhew", Params: "ToyCBS", Insecure: true}

// testWideMux is a small program with XOR layers, a multiplexer and a
// comparison: several tables, some fed by XORs of table outputs.
const testWideMux = `
circuit wmux(a: u4, b: u4, s: bit) -> (y: u4, lt: bit, x: u4) {
	y = s ? a : b;
	lt = a < b;
	x = (a ^ b) + 1;
}
`

// TestWideRoundTrip compiles, encrypts, evaluates and decrypts on ToyCBS
// (one instance and a batch) against the plaintext evaluator.
func TestWideRoundTrip(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	if !strings.Contains(p.Summary(), "wide tables") || !strings.Contains(p.Details(), "predicted failure 2^") {
		t.Errorf("summary %q, details %q", p.Summary(), p.Details())
	}
	t.Logf("%s; %s", p.Summary(), p.Details())
	ck, sk := keysFor(t, p)
	for _, n := range []int{1, 3} {
		ins := randomInputs(p, n, uint64(40+n))
		cts, err := ck.Encrypt(p, ins...)
		if err != nil {
			t.Fatal(err)
		}
		var calls, last int
		out, st, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: 2, Progress: func(done, total int) { calls++; last = done - total }})
		if err != nil {
			t.Fatal(err)
		}
		if calls == 0 || last != 0 {
			t.Errorf("progress: %d calls, last done-total %d", calls, last)
		}
		plan, err := p.scheme.(*wideScheme).plan(p.circuit)
		if err != nil {
			t.Fatal(err)
		}
		if st.Instances != n || st.Runs != n || st.Costly != n*plan.Stats().DistinctIn || st.CostName != "circuit bootstraps" || st.Costly == 0 || st.Busy <= 0 || st.Nodes != n*plan.Stats().Tables {
			t.Errorf("stats %+v, plan %v", st, plan.Stats())
		}
		got, err := ck.Decrypt(p, out)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstPlain(t, p, ins, got)
	}
}

// TestWideFiles writes the program, both keys, inputs and outputs to
// files and runs from what was read back.
func TestWideFiles(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	ck, sk := keysFor(t, p)
	dir := t.TempDir()
	prog, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "wmux.hcp")
	if err := os.WriteFile(path, prog, 0o644); err != nil {
		t.Fatal(err)
	}
	p2, err := Compile(File(path), Target{Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	if p2.Hash() != p.Hash() || p2.Target().Params != "ToyCBS" || p2.Summary() != p.Summary() {
		t.Fatalf("program changed in its file: %q vs %q", p2.Summary(), p.Summary())
	}
	secret, server, _, err := WriteKeys(filepath.Join(dir, "keys"), ck, sk, false)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(secret); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret key file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	ck2, sk2 := readKeys(t, secret, server)
	if ck2.KeyID() != ck.KeyID() || sk2.Params() != "ToyCBS" {
		t.Fatal("keys changed in their files")
	}
	ins := randomInputs(p, 2, 77)
	cts, err := ck2.Encrypt(p2, ins...)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := cts.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cts2, err := UnmarshalCiphertexts(enc)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(context.Background(), p2, sk2, cts2, EvalOptions{Threads: 1, ReleaseInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	encOut, err := out.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	out2, err := UnmarshalCiphertexts(encOut)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ck.Decrypt(p, out2)
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstPlain(t, p, ins, got)
	// A flipped byte in a wide bit is caught by the file's checksum.
	bad := slices.Clone(enc)
	bad[len(bad)-100] ^= 1
	if _, err := UnmarshalCiphertexts(bad); err == nil {
		t.Error("damaged ciphertext file accepted")
	}
}

func readKeys(t *testing.T, secret, server string) (*ClientKey, *ServerKey) {
	t.Helper()
	sd, err := os.ReadFile(secret)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := UnmarshalClientKey(sd)
	if err != nil {
		t.Fatal(err)
	}
	ed, err := os.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := UnmarshalServerKey(ed)
	if err != nil {
		t.Fatal(err)
	}
	return ck, sk
}

// TestWideMismatch: keys of another set or pair, and ciphertexts of
// another program, are refused before any work.
func TestWideMismatch(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	ck, sk := keysFor(t, p)
	cts, err := ck.Encrypt(p, randomInputs(p, 1, 5)...)
	if err != nil {
		t.Fatal(err)
	}
	// A second key pair of the same set: different key id.
	ck2, sk2, err := GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Eval(context.Background(), p, sk2, cts, EvalOptions{}); err == nil {
		t.Error("Eval under another server key accepted")
	}
	out, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ck2.Decrypt(p, out); err == nil {
		t.Error("Decrypt under another secret key accepted")
	}
	// Another set of the same engine (STD128_CBS) and the FHEW gate set.
	for _, set := range []string{"STD128_CBS", "ToySigned"} {
		q := mustCompile(t, HDL(testWideMux, ""), Target{Params: set, Insecure: true})
		if _, _, err := Eval(context.Background(), q, sk, cts, EvalOptions{}); err == nil {
			t.Errorf("ToyCBS key and ciphertexts accepted for a %s program", set)
		}
	}
	// Another program: ciphertexts of testWideMux for testAdder.
	other := mustCompile(t, HDL(testAdder, ""), toyWide)
	if _, _, err := Eval(context.Background(), other, sk, cts, EvalOptions{}); err == nil {
		t.Error("ciphertexts of another program accepted")
	}
	// Without Insecure a Toy set is refused at every step.
	if _, err := Compile(HDL(testWideMux, ""), Target{Params: "ToyCBS"}); err == nil || !strings.Contains(err.Error(), "insecure") {
		t.Errorf("ToyCBS without Insecure: %v", err)
	}
	// Keys of one set do not decode as another's: the header names the set.
	data, err := sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(data, []byte("ToyCBS")); i < 0 {
		t.Error("key file does not name its set")
	}
}

// TestWideParams: the sets are listed, described and resolved.
func TestWideParams(t *testing.T) {
	e, err := LookupEngine("fhew")
	if err != nil {
		t.Fatal(err)
	}
	sets := e.ParamSets()
	for _, name := range []string{"STD128_CBS", "STD128_CBS_595", "ToyCBS"} {
		if !slices.Contains(sets, name) {
			t.Errorf("ParamSets lacks %s: %v", name, sets)
		}
	}
	if !slices.IsSorted(sets) {
		t.Errorf("ParamSets not sorted: %v", sets)
	}
	if h := e.ParamsHelp(); !strings.Contains(h, "[STD128_CBS STD128_CBS_595]") || !strings.Contains(h, "ToyCBS") {
		t.Errorf("ParamsHelp lacks the wide-table sets: %s", h)
	}
	s, err := e.scheme("STD128_CBS", false)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := s.(*wideScheme).options()
	if err != nil || opt.MaxTerms < 2 || opt.MaxTerms > wideMaxTermsCap || opt.PackSlots != 2048 {
		t.Errorf("STD128_CBS options %+v (%v)", opt, err)
	}
	if _, err := e.scheme("ToyCBS", false); err == nil {
		t.Error("ToyCBS resolved without allowInsecure")
	}
}

// TestWideLog2Sum checks the failure union bound against direct sums.
func TestWideLog2Sum(t *testing.T) {
	if got := log2Sum([]float64{-10, -10}); got != -9 {
		t.Errorf("log2Sum(-10, -10) = %v, want -9", got)
	}
	if got := log2Sum([]float64{-3, -2, -3}); got != -1 {
		t.Errorf("log2Sum(-3, -2, -3) = %v, want -1", got)
	}
	if got := log2Sum(nil); got > -1e300 {
		t.Errorf("log2Sum() = %v, want -Inf", got)
	}
	if got := log2Sum([]float64{-1000, -1100}); got < -1000 || got > -999.99 {
		t.Errorf("log2Sum(-1000, -1100) = %v (underflow?)", got)
	}
}

// TestWideTableDepth checks tableDepth on a hand-made plan: table 1
// reads table 0, table 2 reads only inputs.
func TestWideTableDepth(t *testing.T) {
	plan := &ir.WidePlan{NumInputs: 2, Tables: []ir.WideTable{
		{In: []ir.LinearForm{{Terms: []int32{0}}}, Out: [][]uint64{{0b10}}},
		{In: []ir.LinearForm{{Terms: []int32{1, 2}}}, Out: [][]uint64{{0b10}}},
		{In: []ir.LinearForm{{Terms: []int32{1}}}, Out: [][]uint64{{0b01}}},
	}}
	if d := tableDepth(plan); d != 2 {
		t.Errorf("depth %d, want 2", d)
	}
}

// TestWideAutoCost: the price of a plan is its CBS, packing and output
// counts at the set's costs, and the circuit is Compile's.
func TestWideAutoCost(t *testing.T) {
	src, err := LoadCircuit(HDL(testWideMux, ""), StyleSize)
	if err != nil {
		t.Fatal(err)
	}
	d, s, cost, f, err := wideAutoCost(src, "STD128_CBS")
	if err != nil {
		t.Fatal(err)
	}
	p := mustCompile(t, HDL(testWideMux, ""), Target{Params: "STD128_CBS"})
	if circuitHash(d) != circuitHash(p.Circuit()) || s.name() != "STD128_CBS" {
		t.Error("wideAutoCost's circuit or set differs from Compile's")
	}
	plan, err := s.(*wideScheme).plan(d)
	if err != nil {
		t.Fatal(err)
	}
	st := plan.Stats()
	pc := s.(*wideScheme).p.Cost()
	oc := max(pc.Output, minWideOutCost)
	lo := float64(st.DistinctIn)*pc.CBS + float64(st.TableOuts)*oc + float64(st.Tables)*pc.Table
	if cost < lo-1e-9 || cost > lo+float64(st.TableOuts)*pc.Table+1e-9 || f >= -50 {
		t.Errorf("cost %v (CBS/outputs/one polynomial per table: %v), failure 2^%v; plan %v", cost, lo, f, st)
	}
	if _, _, _, _, err := wideAutoCost(src, "NoSuchSet"); err == nil {
		t.Error("unknown set accepted")
	}
}

// TestWideCancel: a cancelled context stops the plan with its error, and
// released inputs cannot be evaluated again.
func TestWideCancel(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	ck, sk := keysFor(t, p)
	cts, err := ck.Encrypt(p, randomInputs(p, 1, 9)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Eval(ctx, p, sk, cts, EvalOptions{}); err == nil || !strings.Contains(err.Error(), "cancel") {
		t.Errorf("cancelled Eval: %v", err)
	}
	if _, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{ReleaseInputs: true}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{}); err == nil {
		t.Error("released inputs evaluated again")
	}
}

// TestWideTranscipher: transcipher keys for a wide-table set are refused
// with a message naming the set.
func TestWideTranscipher(t *testing.T) {
	_, _, err := GenerateKeysForWith(toyWide, KeyOptions{Transcipher: true})
	if err == nil || !strings.Contains(err.Error(), "ToyCBS (wide tables) cannot transcipher") {
		t.Errorf("transcipher keys on ToyCBS: %v", err)
	}
}
