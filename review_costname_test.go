package hcc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEvalCostNameMatchesEval checks that Program.EvalCostName names what
// Eval counts and reports through Progress (the CLI's progress line uses
// it): on a wide-table set that is circuit bootstraps, not the non-linear
// gates Program.Stats counts.
func TestEvalCostNameMatchesEval(t *testing.T) {
	for _, tc := range []struct {
		target Target
		want   string
	}{
		{toyWide, "circuit bootstraps"},
		{Target{Engine: "fhew", Params: "ToyGINX", Insecure: true}, "bootstraps"},
	} {
		p := mustCompile(t, HDL(testWideMux, ""), tc.target)
		ck, sk := keysFor(t, p)
		cts, err := ck.Encrypt(p, randomInputs(p, 1, 7)...)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		_, st, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: 1, Progress: func(done, total int) {
			calls++
			if total != 0 && done > total {
				t.Errorf("%s: progress %d/%d", tc.target.Params, done, total)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.EvalCostName(); got != tc.want || got != st.CostName || calls == 0 || st.Costly == 0 {
			t.Errorf("%s: EvalCostName %q, Eval's Stats.CostName %q, want %q (%d progress calls, %d costly)", tc.target.Params, got, st.CostName, tc.want, calls, st.Costly)
		}
	}
}

// TestWideProgramLoadDoesNotMap checks that reading a wide-table .hcp does
// not run the wide mapper (the client commands only need the interface;
// on AES the mapping costs seconds), and that evaluating it still maps and
// runs correctly.
func TestWideProgramLoadDoesNotMap(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	key := widePlanKey{"ToyCBS", circuitHash(p.circuit)}
	widePlans.Lock()
	delete(widePlans.m, key)
	widePlans.Unlock()
	path := filepath.Join(t.TempDir(), "wmux.hcp")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	q := mustCompile(t, File(path), Target{Insecure: true}) // as the CLI loads a .hcp
	widePlans.Lock()
	_, mapped := widePlans.m[key]
	widePlans.Unlock()
	if mapped {
		t.Errorf("UnmarshalProgram mapped the circuit to wide tables")
	}
	ck, sk := keysFor(t, q)
	ins := randomInputs(q, 1, 9)
	cts, err := ck.Encrypt(q, ins...)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(context.Background(), q, sk, cts, EvalOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ck.Decrypt(q, out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := q.EvalPlain(ins[0])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("decrypted %v, want %v", got[0], want)
	}
}

// TestWideNoTablesNoProgress checks that a wide-table program without
// tables (XOR only) calls no Progress, as gate sets without bootstraps do:
// the CLI would draw "0/0 circuit bootstraps".
func TestWideNoTablesNoProgress(t *testing.T) {
	p := mustCompile(t, HDL(`circuit px(a: u4, b: u4) -> (y: u4) { y = a ^ b; }`, ""), toyWide)
	ck, sk := keysFor(t, p)
	ins := randomInputs(p, 2, 3)
	cts, err := ck.Encrypt(p, ins...)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	out, st, err := Eval(context.Background(), p, sk, cts, EvalOptions{Threads: 1, Progress: func(done, total int) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 0 || st.Costly != 0 {
		t.Errorf("%d progress calls, %d costly, want none", calls, st.Costly)
	}
	got, err := ck.Decrypt(p, out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ins {
		want, err := p.EvalPlain(ins[i])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("instance %d: decrypted %v, want %v", i, got[i], want)
		}
	}
}

// TestWideIgnoresParityBound: the PARITY bound means nothing on a
// wide-table set, so it must not make a different program (it did: a
// different hash, and hcc eval warned on every run that the default
// --parity-failure was ignored).
func TestWideIgnoresParityBound(t *testing.T) {
	a := mustCompile(t, HDL(testWideMux, ""), toyWide)
	tb := toyWide
	tb.ParityFailureLog2 = -40
	b := mustCompile(t, HDL(testWideMux, ""), tb)
	if a.Hash() != b.Hash() || b.Target().ParityFailureLog2 != 0 {
		t.Errorf("hashes %x / %x, target parity bound %v: want one program", a.Hash(), b.Hash(), b.Target().ParityFailureLog2)
	}
	// auto choosing a wide-table set writes a program that loads again.
	sb := HDL("import \"stdlib/sbox.hdl\";\ncircuit sb(x: u8) -> (y: u8) {\n    y = sbox(x);\n}\n", "")
	p := mustCompile(t, sb, Target{Params: AutoParams, ParityFailureLog2: -40})
	if !isWideSet(p.Target().Params) || p.Target().ParityFailureLog2 != 0 {
		t.Errorf("auto: %+v, want a wide-table set without a parity bound", p.Target())
	}
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalProgram(data); err != nil {
		t.Errorf("auto's wide program does not load: %v", err)
	}
	// A .hcp written before the bound was cleared still loads.
	old := *a
	old.target.ParityFailureLog2 = -80
	old.hash = old.computeHash()
	if data, err = old.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalProgram(data); err != nil {
		t.Errorf("a wide program recording a parity bound does not load: %v", err)
	}
	tb.ParityFailureLog2 = 3
	if _, err := Compile(HDL(testWideMux, ""), tb); err == nil {
		t.Errorf("parity bound 3 accepted")
	}
}

// TestWideFailureLog2: Program.FailureLog2 gives a wide-table program's
// predicted failure per run, the one Details prints (it said "none", ok
// false, so FailureWarning could never warn on these sets); a program
// without tables whose outputs are constants predicts nothing.
func TestWideFailureLog2(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	f, ok := p.FailureLog2()
	if !ok || !strings.Contains(p.Details(), fmt.Sprintf("predicted failure 2^%.1f per run", f)) {
		t.Errorf("FailureLog2 = %v, %v; Details %q", f, ok, p.Details())
	}
	c := mustCompile(t, HDL(`circuit k(a: u2) -> (y: u2) { y = 2; }`, ""), toyWide)
	if f, ok := c.FailureLog2(); ok {
		t.Errorf("constant outputs: FailureLog2 = %v, want none (Details %q)", f, c.Details())
	}
}

// TestWideCancelBeforeMapping: a cancelled Eval of a program whose plan is
// not cached yet (a loaded .hcp) returns without mapping it; the mapping
// takes no context and costs seconds on AES.
func TestWideCancelBeforeMapping(t *testing.T) {
	p := mustCompile(t, HDL(testWideMux, ""), toyWide)
	ck, sk := keysFor(t, p)
	cts, err := ck.Encrypt(p, randomInputs(p, 1, 11)...)
	if err != nil {
		t.Fatal(err)
	}
	key := widePlanKey{"ToyCBS", circuitHash(p.circuit)}
	widePlans.Lock()
	delete(widePlans.m, key)
	widePlans.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Eval(ctx, p, sk, cts, EvalOptions{}); err == nil || !strings.Contains(err.Error(), "cancel") {
		t.Errorf("cancelled Eval: %v", err)
	}
	widePlans.Lock()
	_, mapped := widePlans.m[key]
	widePlans.Unlock()
	if mapped {
		t.Error("a cancelled Eval mapped the program first")
	}
}
