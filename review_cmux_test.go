package hcc

import (
	"context"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// toyCMux is the insecure gate set with the shared-select CMux gadget.
var toyCMux = Target{Engine: "fhew", Params: "ToySignedCMux", Insecure: true}

const testCMuxMux = `circuit m(s: bit, a: u8, b: u8) -> (y: u8) { y = s ? a : b; }`

// retarget returns p's file re-encoded for target tg with a valid program
// hash and checksum: what a hand-edited .hcp looks like to the decoder.
func retarget(t *testing.T, p *Program, tg Target) []byte {
	t.Helper()
	q := *p
	var err error
	if q.target, err = tg.normalized(); err != nil {
		t.Fatal(err)
	}
	if q.scheme, err = q.engine.scheme(tg.Params, tg.Insecure); err != nil {
		t.Fatal(err)
	}
	q.hash = q.computeHash()
	data, err := q.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestProgramSelOnPlainSet: a program whose circuit has SEL/CMUX nodes
// but records a gate set without the CMux gadget is refused when read
// (it was accepted, and the encrypted run failed at its first SEL with
// "the backend cannot evaluate this op"). The same circuit on its own set
// still loads and runs correctly.
func TestProgramSelOnPlainSet(t *testing.T) {
	p := mustCompile(t, HDL(testCMuxMux, ""), toyCMux)
	if st := p.Stats(); st.Count[ir.OpSel] == 0 {
		t.Fatalf("no SEL in the mapping on %s: %v", toyCMux.Params, st.Count)
	}
	_, err := UnmarshalProgram(retarget(t, p, toyFHEW))
	if err == nil || !strings.Contains(err.Error(), "CMux gadget") || !strings.Contains(err.Error(), "ToySigned") {
		t.Fatalf("SEL/CMUX program on ToySigned: err = %v, want a refusal naming the gadget and the set", err)
	}
	r, err := UnmarshalProgram(retarget(t, p, toyCMux))
	if err != nil {
		t.Fatal(err)
	}
	r.insecureOK = true
	ck, sk := keysFor(t, r)
	for _, in := range [][]string{{"s=1", "a=5", "b=9"}, {"s=0", "a=5", "b=9"}} {
		v, err := r.ParseInputs(in...)
		if err != nil {
			t.Fatal(err)
		}
		cts, err := ck.Encrypt(r, v)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := Eval(context.Background(), r, sk, cts, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ck.Decrypt(r, out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := r.EvalPlain(v)
		if err != nil {
			t.Fatal(err)
		}
		if got[0]["y"][0].Cmp(want["y"][0]) != 0 {
			t.Errorf("%v: decrypted %v, plaintext %v", in, got[0]["y"][0], want["y"][0])
		}
	}
}
