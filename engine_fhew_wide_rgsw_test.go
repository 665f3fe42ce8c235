package hcc

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// testWideDirect has tables that read 1-, 2- and 3-term XORs of input
// bits (each output bit a non-linear function of such forms), and one that
// mixes an input with a table output.
const testWideDirect = `
circuit wdir(a: u8, b: u8, c: u8) -> (y: bit, z: bit, v: u8, w: u8) {
	y = (a ^ b) == 0xff;
	z = (a ^ b ^ c) == 0;
	v = a & c;
	w = (v ^ b) | c;
}
`

// directTermCounts returns, per term count, how many distinct table input
// forms of p's plan read only input bits.
func directTermCounts(t *testing.T, p *Program) map[int]int {
	t.Helper()
	plan, err := p.scheme.(*wideScheme).plan(p.circuit)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	counts := map[int]int{}
	for i := range plan.Tables {
		for j := range plan.Tables[i].In {
			f := &plan.Tables[i].In[j]
			direct := len(f.Terms) > 0
			for _, x := range f.Terms {
				direct = direct && int(x) < plan.NumInputs
			}
			if k := wideFormKey(f); direct && !seen[k] {
				seen[k] = true
				counts[len(f.Terms)]++
			}
		}
	}
	return counts
}

// TestWideInputRGSWRoundTrip evaluates a batch with and without input
// RGSWs against the plaintext evaluator: the option must remove exactly
// the plan's input-only forms from the bootstraps and change no output.
func TestWideInputRGSWRoundTrip(t *testing.T) {
	p := mustCompile(t, HDL(testWideDirect, ""), toyWide)
	counts := directTermCounts(t, p)
	ws := p.scheme.(*wideScheme)
	if maxT := ws.p.InputFormMaxTerms(); maxT < 3 || counts[1] == 0 || counts[2] == 0 || counts[3] == 0 {
		t.Fatalf("want input-only forms of 1, 2 and 3 terms (InputFormMaxTerms %d): %v", maxT, counts)
	}
	plan, _ := ws.plan(p.circuit)
	direct := ws.p.InputFormsBuilt(plan)
	sum := 0
	for k, n := range counts {
		if k <= ws.p.InputFormMaxTerms() {
			sum += n
		}
	}
	if direct != sum || direct == 0 {
		t.Fatalf("InputFormsBuilt %d, want %d (counts %v)", direct, sum, counts)
	}
	t.Logf("%s; input-only forms by terms %v, %d of %d built from input RGSWs", p.Summary(), counts, direct, plan.Stats().DistinctIn)
	ck, sk := keysFor(t, p)
	for _, n := range []int{1, 3} {
		for _, with := range []bool{false, true} {
			ins := randomInputs(p, n, uint64(70+n))
			cts, err := ck.EncryptWith(p, EncryptOptions{InputRGSW: with}, ins...)
			if err != nil {
				t.Fatal(err)
			}
			if cts.HasInputRGSW() != with {
				t.Fatalf("HasInputRGSW %v, want %v", cts.HasInputRGSW(), with)
			}
			var last, lastTotal int
			out, st, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: 2, ReleaseInputs: n == 3,
				Progress: func(done, total int) { last, lastTotal = done, total }})
			if err != nil {
				t.Fatalf("n %d, InputRGSW %v: %v", n, with, err)
			}
			want := n * plan.Stats().DistinctIn
			if with {
				want -= n * direct
			}
			if st.Costly != want || last != want || lastTotal != want {
				t.Errorf("n %d, InputRGSW %v: %d circuit bootstraps, progress %d of %d, want %d", n, with, st.Costly, last, lastTotal, want)
			}
			got, err := ck.Decrypt(p, out)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstPlain(t, p, ins, got)
		}
	}
}

// TestWideInputRGSWMixed: a run whose bits carry RGSWs only in part is
// refused (Eval and MarshalBinary), naming the fix.
func TestWideInputRGSWMixed(t *testing.T) {
	p := mustCompile(t, HDL(testWideDirect, ""), toyWide)
	ck, sk := keysFor(t, p)
	ins := randomInputs(p, 2, 3)
	with, err := ck.EncryptWith(p, EncryptOptions{InputRGSW: true}, ins...)
	if err != nil {
		t.Fatal(err)
	}
	without, err := ck.Encrypt(p, ins...)
	if err != nil {
		t.Fatal(err)
	}
	// Pack 2 without, and one bit of pack 1 without: both are mixes.
	for _, mix := range []func(c *Ciphertexts){
		func(c *Ciphertexts) { c.packs[1] = without.packs[1] },
		func(c *Ciphertexts) {
			c.packs[0].cts = append([]backend.Ciphertext(nil), c.packs[0].cts...)
			c.packs[0].cts[5] = without.packs[0].cts[5]
		},
	} {
		c := *with
		c.packs = append([]pack(nil), with.packs...)
		mix(&c)
		if _, _, err := Eval(context.Background(), p, sk, &c, EvalOptions{Threads: 1}); !errors.Is(err, errMixedInputRGSW) {
			t.Errorf("Eval of mixed inputs: %v", err)
		}
		if _, err := c.MarshalBinary(); !errors.Is(err, errMixedInputRGSW) {
			t.Errorf("MarshalBinary of mixed inputs: %v", err)
		}
	}
	if !strings.Contains(errMixedInputRGSW.Error(), "--input-rgsw") {
		t.Errorf("the error names no fix: %v", errMixedInputRGSW)
	}
}

// TestWideInputRGSWOtherSets: the gate, CMux and BGV sets refuse the
// option at encryption and in the memory estimate.
func TestWideInputRGSWOtherSets(t *testing.T) {
	const src = `circuit c(a: u2, b: u2) -> (y: u2) { y = a & b; }`
	for _, tg := range []Target{toyFHEW, toyCMux, toyBGV} {
		p := mustCompile(t, HDL(src, ""), tg)
		ck, _ := keysFor(t, p)
		_, err := ck.EncryptWith(p, EncryptOptions{InputRGSW: true}, randomInputs(p, 1, 1)...)
		if err == nil || !strings.Contains(err.Error(), "no client-side input RGSWs") || !strings.Contains(err.Error(), tg.Params) {
			t.Errorf("%s: EncryptWith(InputRGSW): %v", tg.Params, err)
		}
		for _, o := range []MemoryOptions{{InputRGSW: true}, {InputRGSW: true, EncryptOnly: true}} {
			if _, _, err := p.EstimateMemory(o); err == nil || !strings.Contains(err.Error(), "no client-side input RGSWs") {
				t.Errorf("%s: EstimateMemory(%+v): %v", tg.Params, o, err)
			}
		}
		if _, err := ck.EncryptWith(p, EncryptOptions{}, randomInputs(p, 1, 1)...); err != nil {
			t.Errorf("%s: EncryptWith without options: %v", tg.Params, err)
		}
	}
}

// TestWideInputRGSWFile: a file with input RGSWs round-trips byte for byte
// and evaluates from what was read; truncated, resized and damaged
// (re-sealed) data is an error, never a panic; a file without them still
// decodes to bare wide bits.
func TestWideInputRGSWFile(t *testing.T) {
	p := mustCompile(t, HDL(testWideDirect, ""), toyWide)
	ws := p.scheme.(*wideScheme)
	ck, sk := keysFor(t, p)
	ins := randomInputs(p, 2, 9)
	cts, err := ck.EncryptWith(p, EncryptOptions{InputRGSW: true}, ins...)
	if err != nil {
		t.Fatal(err)
	}
	data, err := cts.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ck.Encrypt(p, ins...)
	if err != nil {
		t.Fatal(err)
	}
	plainData, err := plain.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	bit, rgsw := cbs.WideBitSize(ws.p), cbs.InputRGSWSize(ws.p)
	nbits := 2 * p.Circuit().NumInputBits()
	if rgsw <= 0 || len(data)-len(plainData) != nbits*rgsw {
		t.Fatalf("file of %d bytes with RGSWs, %d without: want %d more (%d bits of %d)", len(data), len(plainData), nbits*rgsw, nbits, rgsw)
	}
	back, err := UnmarshalCiphertexts(data)
	if err != nil {
		t.Fatal(err)
	}
	if !back.HasInputRGSW() {
		t.Fatal("decoded file has no input RGSWs")
	}
	if again, err := back.MarshalBinary(); err != nil || string(again) != string(data) {
		t.Fatalf("re-encoding differs (%v)", err)
	}
	if pb, err := UnmarshalCiphertexts(plainData); err != nil || pb.HasInputRGSW() {
		t.Fatalf("file without RGSWs: %v, HasInputRGSW %v", err, pb != nil && pb.HasInputRGSW())
	}
	out, st, err := Eval(context.Background(), p, sk, back, EvalOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := ws.plan(p.circuit)
	if st.Costly >= 2*plan.Stats().DistinctIn {
		t.Errorf("%d circuit bootstraps from the file, %d without RGSWs", st.Costly, 2*plan.Stats().DistinctIn)
	}
	got, err := ck.Decrypt(p, out)
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstPlain(t, p, ins, got)

	// Truncated, with and without a valid checksum.
	for _, cut := range []int{1, rgsw / 2, rgsw + 7} {
		d := data[:len(data)-cut]
		if _, err := UnmarshalCiphertexts(d); err == nil {
			t.Errorf("cut %d: accepted", cut)
		}
		if _, err := UnmarshalCiphertexts(seal(append([]byte(nil), d[:len(d)-32]...))); err == nil {
			t.Errorf("cut %d, re-sealed: accepted", cut)
		}
	}
	// Damaged: the last RGSW's last coefficient above its prime, re-sealed.
	body := append([]byte(nil), data[:len(data)-32]...)
	binary.LittleEndian.PutUint32(body[len(body)-4:], 0xffffffff)
	if _, err := UnmarshalCiphertexts(seal(body)); err == nil || !strings.Contains(err.Error(), "input RGSW") {
		t.Errorf("damaged RGSW: %v", err)
	}
	// One ciphertext's encoding of a size that is neither.
	for _, n := range []int{bit - 1, bit + 1, bit + rgsw - 1, bit + rgsw + 1} {
		if _, err := ws.decode(make([]byte, n)); err == nil || !strings.Contains(err.Error(), "its input RGSW") {
			t.Errorf("a ciphertext of %d bytes: %v", n, err)
		}
	}
}

// TestWideInputRGSWMemory: the estimate grows by exactly the input RGSWs
// (times the copies and the collector's factor), sized as cbs makes them.
func TestWideInputRGSWMemory(t *testing.T) {
	p := mustCompile(t, HDL(testWideDirect, ""), toyWide)
	ws := p.scheme.(*wideScheme)
	ck, _ := keysFor(t, p)
	cts, err := ck.EncryptWith(p, EncryptOptions{InputRGSW: true}, randomInputs(p, 1, 2)...)
	if err != nil {
		t.Fatal(err)
	}
	r := cts.packs[0].cts[0].(*wideInput).rgsw
	if got := wideInputRGSWBytes(ws.p); got != int64(r.SizeBytes()) || got == 0 {
		t.Fatalf("wideInputRGSWBytes %d, cbs.InputRGSW.SizeBytes %d", got, r.SizeBytes())
	}
	in := int64(p.Circuit().NumInputBits())
	gc := wideGCFactor()
	for _, o := range []MemoryOptions{{EncryptOnly: true, Packs: 4}, {Threads: 2, Packs: 4}, {Threads: 2, Packs: 1000, Client: true}} {
		base, _, err := p.EstimateMemory(o)
		if err != nil {
			t.Fatal(err)
		}
		o.InputRGSW = true
		with, _, err := p.EstimateMemory(o)
		if err != nil {
			t.Fatal(err)
		}
		copies := int64(wideFileCopies)
		if o.Client {
			copies = 1
		}
		// The waiting packs are the inputs here (as many input as output
		// bits): per input bit its RGSW, and copies-1 encodings of it.
		r := wideInputRGSWBytes(ws.p) + (copies-1)*int64(cbs.InputRGSWSize(ws.p))
		want := gc * float64(int64(o.Packs)*in*r)
		if d := float64(with.Total - base.Total); d < want-2 || d > want+2 {
			t.Errorf("%+v: estimate grew by %.0f, want %.0f (%s)", o, d, want, with.Text)
		}
		if !strings.Contains(with.Text, "with their RGSWs") || strings.Contains(base.Text, "with their RGSWs") {
			t.Errorf("%+v: %s", o, with.Text)
		}
	}
}

// TestWideInputRGSWSplit: a batch with input RGSWs splits into parts that
// go through files, evaluate on their own (as a cluster's servers do) and
// join back in order.
func TestWideInputRGSWSplit(t *testing.T) {
	p := mustCompile(t, HDL(testWideDirect, ""), toyWide)
	ck, sk := keysFor(t, p)
	ins := randomInputs(p, 3, 21)
	cts, err := ck.EncryptWith(p, EncryptOptions{InputRGSW: true}, ins...)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := cts.Split(2)
	if err != nil || len(parts) != 2 {
		t.Fatalf("split: %d parts, %v", len(parts), err)
	}
	var outs []*Ciphertexts
	for i, part := range parts {
		data, err := part.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalCiphertexts(data)
		if err != nil || !back.HasInputRGSW() {
			t.Fatalf("part %d: %v", i+1, err)
		}
		out, _, err := Eval(context.Background(), p, sk, back, EvalOptions{Threads: 2})
		if err != nil {
			t.Fatalf("part %d: %v", i+1, err)
		}
		outs = append(outs, out)
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
}
