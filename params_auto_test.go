package hcc

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
)

// autoSrc holds small circuits for the AutoParams tests: a full adder's
// carry (one or two bootstraps), a 16-bit comparator, an 8-bit adder and a
// 12-bit multiplier, enough structure for the sets to differ.
const autoSrc = `
circuit maj3(a: bit, b: bit, c: bit) -> (m: bit) {
    m = (a & b) | (c & (a ^ b));
}
circuit cmp16(x: u16, y: u16) -> (lt: bit, eq: bit, mx: u16) {
    lt = x < y;
    eq = x == y;
    mx = lt ? y : x;
}
circuit add8(x: u8, y: u8) -> (s: u8) {
    s = x + y;
}
circuit wire(a: u4) -> (b: u4) {
    b = a;
}
circuit mul12(x: u12, y: u12) -> (p: u12) {
    p = x * y;
}
`

// TestAutoChoice: the chosen set is a 128-bit set, first of the report,
// within the failure target; every 128-bit set is a candidate exactly
// once; the program records the concrete set (file, Hash, Choice nil
// after reading); an untightened choice is the named set's own program;
// a circuit without bootstraps gets the default set.
func TestAutoChoice(t *testing.T) {
	for _, name := range []string{"maj3", "cmp16", "wire"} {
		p, err := Compile(HDL(autoSrc, name), Target{Params: AutoParams})
		if err != nil {
			t.Fatal(err)
		}
		set := p.Target().Params
		pc := p.Choice()
		if pc == nil {
			t.Fatalf("%s: no Choice", name)
		}
		ch := pc.Chosen()
		t.Logf("%s: chose %s: %s", name, set, ch)
		if !(fhewEngine{}).autoCandidate(set) || ch.Params != set || !ch.OK || ch.FailureLog2 > MaxFailureLog2 || ch.Skipped {
			t.Fatalf("%s: chose %s, report %+v", name, set, ch)
		}
		if name == "wire" && set != fhewDefaultParams {
			t.Errorf("without bootstraps every set costs nothing: chose %s, want the default %s", set, fhewDefaultParams)
		}
		if got := p.Stats().Costly; got != ch.Bootstraps {
			t.Errorf("%s: program has %d bootstraps, the choice says %d", name, got, ch.Bootstraps)
		}
		var names []string
		for i, c := range pc.Candidates {
			names = append(names, c.Params)
			if c.Line == "" || !strings.HasPrefix(c.Line, c.Params+":") {
				t.Errorf("%s: candidate line %q", name, c.Line)
			}
			if i > 0 && c.OK && !c.Skipped && c.Cost < ch.Cost {
				t.Errorf("%s: %s is cheaper than the chosen set", name, c)
			}
		}
		slices.Sort(names)
		want := slices.Sorted(slices.Values(append(fhew.SecureNames(), wideNames(false)...)))
		if !slices.Equal(names, want) {
			t.Errorf("%s: candidates %v, want the 128-bit sets %v", name, names, want)
		}
		data, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		q, err := UnmarshalProgram(data)
		if err != nil {
			t.Fatal(err)
		}
		if q.Target().Params != set || q.Hash() != p.Hash() || q.Choice() != nil {
			t.Errorf("%s: read back as %s (hash equal %v, choice %v)", name, q.Target().Params, q.Hash() == p.Hash(), q.Choice())
		}
		if ch.LUTFailureLog2 == fhew.DefaultLUTFailureLog2 {
			named, err := Compile(HDL(autoSrc, name), Target{Params: set})
			if err != nil {
				t.Fatal(err)
			}
			if named.Hash() != p.Hash() {
				t.Errorf("%s: auto's program differs from the one compiled for %s", name, set)
			}
		}
	}
}

// TestAutoPrunedSame: on small circuits the pruned choice AutoParams uses
// equals the full ChooseLUTSet over the same candidates: the same set,
// bootstraps, cost and failure, and every candidate it mapped in full has
// the full run's result; a skipped one's estimate is at most its real
// cost (the estimate is a lower bound here).
func TestAutoPrunedSame(t *testing.T) {
	cands, err := fhewAutoCandidates(Target{})
	if err != nil {
		t.Fatal(err)
	}
	srcs := []Source{HDL(autoSrc, "maj3"), HDL(autoSrc, "cmp16"), HDL(autoSrc, "add8"), HDL(autoSrc, "mul12"),
		{Name: "tests/testdata/muxheavy.hdl", Circuit: "argmax8"}, {Name: "tests/testdata/muxheavy.hdl", Circuit: "cmp32"}}
	for _, src := range srcs {
		name := src.Circuit
		c, err := LoadCircuit(src, "")
		if err != nil {
			t.Fatal(err)
		}
		full, err := optimize.ChooseLUTSet(c, cands, MaxFailureLog2, DefaultLUTInputs)
		if err != nil {
			t.Fatal(err)
		}
		pruned, err := optimize.ChooseLUTSetPruned(c, cands, MaxFailureLog2, DefaultLUTInputs)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]optimize.LUTChoice{}
		for _, ch := range full {
			byName[ch.Name] = ch
		}
		f, p := full[0], pruned[0]
		skipped := 0
		for _, ch := range pruned {
			if ch.Skipped {
				skipped++
			}
		}
		t.Logf("%s: %s; %d of %d candidates skipped or not tightened", name, p, skipped, len(pruned))
		if f.Name != p.Name || f.Bootstraps != p.Bootstraps || f.Cost != p.Cost || f.Log2Failure != p.Log2Failure || circuitHash(f.Circuit) != circuitHash(p.Circuit) {
			t.Errorf("%s: pruned chose %v, full %v", name, p, f)
		}
		for _, ch := range pruned {
			ref := byName[ch.Name]
			switch {
			case !ch.Skipped:
				if ch.Bootstraps != ref.Bootstraps || ch.LUTFailureLog2 != ref.LUTFailureLog2 || ch.OK != ref.OK {
					t.Errorf("%s: pruned %v, full %v", name, ch, ref)
				}
			case ch.Cost > ref.Cost:
				t.Errorf("%s: estimate %v above the real %v", name, ch, ref)
			}
		}
	}
}

// TestAutoCovers: the Covers relation on the 128-bit sets is what the
// noise figures say: STD128_LOWFAIL_T covers the noisier P = 4 sets
// (STD128_GINX covers STD128_T),
// STD128_P8_G the other P = 8 sets, and no set covers one of another
// message space or a less noisy one.
func TestAutoCovers(t *testing.T) {
	cands, err := fhewAutoCandidates(Target{})
	if err != nil {
		t.Fatal(err)
	}
	covers := map[string][]string{}
	for _, c := range cands {
		covers[c.Name] = c.Covers
	}
	want := map[string][]string{
		"STD128_LOWFAIL_T": {"STD128_GINX", "STD128_T"},
		"STD128_P8_G":      {"STD128_LOWFAIL3_T", "STD128_P8_T"},
		"STD128_P8_T":      {"STD128_LOWFAIL3_T"},
		"STD128_GINX":      {"STD128_T"},
	}
	for name, w := range want {
		if !slices.Equal(covers[name], w) {
			t.Errorf("%s covers %v, want %v", name, covers[name], w)
		}
	}
	for _, name := range []string{"STD128_T", "STD128_LOWFAIL3_T"} {
		if len(covers[name]) != 0 {
			t.Errorf("%s covers %v, want none", name, covers[name])
		}
	}
}

// TestAutoInsecure: Insecure changes nothing (auto never picks a Toy or a
// below-target set); a program file read with Params auto must record a
// set auto chooses; auto is refused where no circuit is compiled, and on
// BGV; the unknown-set error names auto.
func TestAutoInsecure(t *testing.T) {
	a, err := Compile(HDL(autoSrc, "maj3"), Target{Params: AutoParams})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compile(HDL(autoSrc, "maj3"), Target{Params: AutoParams, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Target().Params != b.Target().Params || circuitHash(a.Circuit()) != circuitHash(b.Circuit()) {
		t.Errorf("Insecure changed the choice: %s against %s", b.Target().Params, a.Target().Params)
	}
	for _, c := range b.Choice().Candidates {
		if !(fhewEngine{}).autoCandidate(c.Params) || c.Params == "ToyCBS" || strings.HasPrefix(c.Params, "Toy") {
			t.Errorf("candidate %s is not a 128-bit set", c.Params)
		}
	}

	dir := t.TempDir()
	write := func(p *Program) string {
		data, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		path := dir + "/" + p.Target().Params + ".hcp"
		if err := WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if _, err := CompileFile(write(a), Target{Params: AutoParams}); err != nil {
		t.Errorf("reading auto's own program with Params auto: %v", err)
	}
	below, err := Compile(HDL(autoSrc, "maj3"), Target{Params: "STD128_LMKCDEY_G"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CompileFile(write(below), Target{Params: AutoParams}); err == nil || !strings.Contains(err.Error(), "does not choose") {
		t.Errorf("a below-target program read with Params auto: %v", err)
	}

	if _, _, err := GenerateKeysFor(Target{Params: AutoParams}); err == nil || !strings.Contains(err.Error(), "chosen per circuit") {
		t.Errorf("GenerateKeysFor auto: %v", err)
	}
	if _, err := Compile(HDL(autoSrc, "maj3"), Target{Engine: "bgv", Params: AutoParams}); err == nil || !strings.Contains(err.Error(), "fhew") {
		t.Errorf("bgv with auto: %v", err)
	}
	if _, err := Compile(HDL(autoSrc, "maj3"), Target{Params: "STD256"}); err == nil || !strings.Contains(err.Error(), AutoParams) {
		t.Errorf("unknown set: %v", err)
	}
	// InterfaceOnly cannot skip the passes: they choose the set.
	p, err := Compile(HDL(autoSrc, "maj3"), Target{Params: AutoParams}, InterfaceOnly())
	if err != nil || !p.Evaluable() || p.Target().Params != a.Target().Params {
		t.Errorf("InterfaceOnly with auto: %v", err)
	}
}

// TestAutoParityFailure: Target.ParityFailureLog2 bounds the candidates'
// PARITY width as it does a named set's: a looser bound never costs more
// bootstraps, and every PARITY node of the program fits the bound it
// recorded.
func TestAutoParityFailure(t *testing.T) {
	tight, err := Compile(HDL(autoSrc, "add8"), Target{Params: AutoParams})
	if err != nil {
		t.Fatal(err)
	}
	loose, err := Compile(HDL(autoSrc, "add8"), Target{Params: AutoParams, ParityFailureLog2: -40})
	if err != nil {
		t.Fatal(err)
	}
	if loose.Choice().Chosen().Cost > tight.Choice().Chosen().Cost {
		t.Errorf("PARITY at 2^-40 costs more (%v) than at 2^-80 (%v)", loose.Choice().Chosen(), tight.Choice().Chosen())
	}
	for _, p := range []*Program{tight, loose} {
		if p.Choice().Chosen().Wide {
			t.Fatalf("add8 chose the wide-table set %s", p.Target().Params)
		}
		if err := p.engine.validate(p.Circuit(), p.scheme, p.Target()); err != nil {
			t.Errorf("%s: %v", p.Target().Params, err)
		}
		if f, ok := p.scheme.(*fhewScheme).failureLog2(p.Circuit()); ok && f > MaxFailureLog2 {
			t.Errorf("%s: predicted failure 2^%.1f", p.Target().Params, f)
		}
	}
}

// TestAutoEncrypted runs auto's program for maj3 encrypted at its 128-bit
// set on every input: the decrypted outputs are the plaintext ones.
func TestAutoEncrypted(t *testing.T) {
	p, err := Compile(HDL(autoSrc, "maj3"), Target{Params: AutoParams})
	if err != nil {
		t.Fatal(err)
	}
	ck, sk, err := GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Params() != p.Target().Params {
		t.Fatalf("keys for %s, program for %s", ck.Params(), p.Target().Params)
	}
	var sets []Values
	for x := range 8 {
		v, err := p.ParseInputs(fmt.Sprintf("a=%d", x&1), fmt.Sprintf("b=%d", x>>1&1), fmt.Sprintf("c=%d", x>>2))
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, v)
	}
	in, err := ck.Encrypt(p, sets...)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(t.Context(), p, sk, in, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ck.Decrypt(p, out)
	if err != nil {
		t.Fatal(err)
	}
	for x, v := range sets {
		want, err := p.EvalPlain(v)
		if err != nil {
			t.Fatal(err)
		}
		maj := int64(0)
		if x&1+x>>1&1+x>>2 >= 2 {
			maj = 1
		}
		if got[x]["m"][0].Cmp(want["m"][0]) != 0 || want["m"][0].Int64() != maj {
			t.Errorf("maj3(%03b) = %v, want %v", x, got[x]["m"][0], maj)
		}
	}
}

// TestAutoAES compares the pruned choice with the full ChooseLUTSet on
// circuits/aes/aes128.hdl (or the comma-separated files of HCC_AUTO_FILES)
// and counts the mappings each needs. Opt-in (a minute per large circuit):
//
//	HCC_AUTO_AES=1 go test . -run AutoAES -v -timeout 30m
//	HCC_AUTO_AES=1 HCC_AUTO_FILES=../shared/circuits/mult64.txt,... go test . -run AutoAES -v
func TestAutoAES(t *testing.T) {
	if os.Getenv("HCC_AUTO_AES") == "" {
		t.Skip("opt-in: HCC_AUTO_AES=1 (maps aes128.hdl on every 128-bit set)")
	}
	files := []string{"circuits/aes/aes128.hdl"}
	if f := os.Getenv("HCC_AUTO_FILES"); f != "" {
		files = strings.Split(f, ",")
	}
	for _, f := range files {
		t.Run(f[strings.LastIndexByte(f, '/')+1:], func(t *testing.T) { autoCompare(t, f) })
	}
}

func autoCompare(t *testing.T, file string) {
	c, err := LoadCircuit(File(file), "")
	if err != nil {
		t.Fatal(err)
	}
	cands, err := fhewAutoCandidates(Target{})
	if err != nil {
		t.Fatal(err)
	}
	var mappings atomic.Int32
	for i := range cands {
		tg := cands[i].Target
		cands[i].Target = func(b float64) optimize.LUTTarget { mappings.Add(1); return tg(b) }
	}
	run := func(choose func(*ir.Circuit, []optimize.LUTCandidate, float64, int) ([]optimize.LUTChoice, error)) ([]optimize.LUTChoice, int32, time.Duration) {
		mappings.Store(0)
		t0 := time.Now()
		out, err := choose(c, cands, MaxFailureLog2, DefaultLUTInputs)
		if err != nil {
			t.Fatal(err)
		}
		return out, mappings.Load(), time.Since(t0)
	}
	pruned, np, tp := run(optimize.ChooseLUTSetPruned)
	full, nf, tf := run(optimize.ChooseLUTSet)
	for _, ch := range full {
		t.Logf("full:   %v", ch)
	}
	for _, ch := range pruned {
		t.Logf("pruned: %v", ch)
	}
	t.Logf("full: %d mappings in %v; pruned: %d mappings in %v", nf, tf.Round(time.Millisecond), np, tp.Round(time.Millisecond))
	if f, p := full[0], pruned[0]; f.Name != p.Name || f.Bootstraps != p.Bootstraps || circuitHash(f.Circuit) != circuitHash(p.Circuit) {
		t.Errorf("pruned chose %v, full %v", p, f)
	}
	actual := map[string]optimize.LUTChoice{}
	for _, ch := range full {
		actual[ch.Name] = ch
	}
	for _, ch := range pruned {
		if ch.Skipped && ch.Cost > actual[ch.Name].Cost {
			t.Logf("estimate above the real cost (the choice is still checked above): %v, real %v", ch, actual[ch.Name])
		}
	}
}

// TestAutoWide: an AES S-box, one 8-input table on a wide-table set
// against 63 or more bootstraps on every LUT set, chooses the wide-table
// set; the program records it, computes the S-box (all 256 inputs, in
// plaintext), reads back with Params auto, and its report marks it Wide.
func TestAutoWide(t *testing.T) {
	src := HDL("import \"stdlib/sbox.hdl\";\ncircuit sb(x: u8) -> (y: u8) {\n    y = sbox(x);\n}\n", "")
	p, err := Compile(src, Target{Params: AutoParams})
	if err != nil {
		t.Fatal(err)
	}
	ch := p.Choice().Chosen()
	t.Logf("chose %s", ch)
	if !ch.Wide || !isWideSet(p.Target().Params) || ch.Params != p.Target().Params || !ch.OK {
		t.Fatalf("chose %s (%v), want a wide-table set", p.Target().Params, ch)
	}
	for _, c := range p.Choice().Candidates[1:] {
		if c.OK && c.Cost < ch.Cost {
			t.Errorf("%s is cheaper than the chosen set", c)
		}
	}
	src0, err := LoadCircuit(src, "")
	if err != nil {
		t.Fatal(err)
	}
	for x := range 256 {
		in, err := p.ParseInputs(fmt.Sprintf("x=%d", x))
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.EvalPlain(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := src0.Eval(in)
		if err != nil {
			t.Fatal(err)
		}
		if got["y"][0].Cmp(want["y"][0]) != 0 {
			t.Fatalf("sbox(%#x) = %v, want %v", x, got["y"][0], want["y"][0])
		}
	}
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	q, err := UnmarshalProgram(data)
	if err != nil {
		t.Fatal(err)
	}
	if q.Target().Params != p.Target().Params || q.Hash() != p.Hash() {
		t.Errorf("read back as %s", q.Target().Params)
	}
	path := t.TempDir() + "/sb.hcp"
	if err := WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CompileFile(path, Target{Params: AutoParams}); err != nil {
		t.Errorf("reading the wide program with Params auto: %v", err)
	}
}
