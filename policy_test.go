package hcc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInsecureProgramFile: a program file recording a Toy set does not by
// itself allow insecure keys or encryption: the caller's Target.Insecure
// must say so, and the refusal names the file (F18).
func TestInsecureProgramFile(t *testing.T) {
	for _, tg := range []Target{toyFHEW, toyBGV} {
		p := mustCompile(t, HDL(testAdder, ""), tg)
		data, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "toy.hcp")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		loaded, err := Compile(File(path), Target{})
		if err != nil {
			t.Fatal(err)
		}
		want := path + " records the insecure parameter set " + tg.Params
		if _, _, err := GenerateKeys(loaded); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Target.Insecure") {
			t.Errorf("%s: GenerateKeys of a loaded Toy program: %v, want %q", tg.Engine, err, want)
		}
		if _, _, err := GenerateKeysWith(loaded, KeyOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: GenerateKeysWith: %v, want %q", tg.Engine, err, want)
		}
		ck, _ := keysFor(t, p) // the in-process program was compiled with Insecure
		in := randomInputs(p, 1, 1)
		if _, err := ck.Encrypt(loaded, in...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Encrypt for a loaded Toy program: %v, want %q", tg.Engine, err, want)
		}
		if _, err := ck.Encrypt(p, in...); err != nil {
			t.Errorf("%s: Encrypt with Insecure: %v", tg.Engine, err)
		}
		allowed, err := Compile(File(path), Target{Insecure: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ck.Encrypt(allowed, in...); err != nil {
			t.Errorf("%s: Encrypt for a program loaded with Insecure: %v", tg.Engine, err)
		}
		if loaded.Hash() != allowed.Hash() {
			t.Errorf("%s: the permission changed the program hash", tg.Engine)
		}
	}
}

// TestEstimateMemory: BGV programs are priced before keygen (more threads,
// more packs cost more); so are FHEW's (F5; engine_fhew_memory_test.go).
func TestEstimateMemory(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyBGV)
	one, ok, err := p.EstimateMemory(MemoryOptions{Threads: 1})
	if err != nil || !ok || one.Total <= 0 || !strings.HasPrefix(one.Text, "about ") {
		t.Fatalf("bgv estimate: %+v %v %v", one, ok, err)
	}
	four, _, _ := p.EstimateMemory(MemoryOptions{Threads: 4})
	packs, _, _ := p.EstimateMemory(MemoryOptions{Threads: 1, Packs: 3})
	enc, _, _ := p.EstimateMemory(MemoryOptions{EncryptOnly: true})
	if four.Total <= one.Total || packs.Total <= one.Total || enc.Total <= 0 {
		t.Errorf("estimates: 1 thread %d, 4 threads %d, 3 packs %d, encrypt %d", one.Total, four.Total, packs.Total, enc.Total)
	}
	f := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	fe, ok, err := f.EstimateMemory(MemoryOptions{})
	fp, _, _ := f.EstimateMemory(MemoryOptions{Packs: 50})
	if !ok || err != nil || fe.Total <= 0 || fp.Total <= fe.Total {
		t.Errorf("fhew estimate: %+v, 50 instances %d, ok %v, err %v", fe, fp.Total, ok, err)
	}
}

// TestSecurityWarning: a program or key of a set below the 128-bit target
// says so with the set's security statement; 128-bit sets say nothing (F12).
func TestSecurityWarning(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), Target{Params: "STD128_P8_Q28"})
	if w := p.SecurityWarning(); !strings.Contains(w, "STD128_P8_Q28 is below the 128-bit security target") || !strings.Contains(w, "about 123 bits") {
		t.Errorf("STD128_P8_Q28: %q", w)
	}
	if w := mustCompile(t, HDL(testAdder, ""), Target{}).SecurityWarning(); w != "" {
		t.Errorf("default set warns: %q", w)
	}
}

// TestFailureWarning: a program predicted to fail more often than
// 2^-40 per run is reported; the default set's program is not (F21).
func TestFailureWarning(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), Target{Params: "STD128_LMKCDEY_G"})
	f, ok := p.FailureLog2()
	if !ok || f <= MaxFailureLog2 {
		t.Fatalf("STD128_LMKCDEY_G adder: failure 2^%v, ok %v; want above 2^%d", f, ok, MaxFailureLog2)
	}
	if w := p.FailureWarning(); !strings.Contains(w, "is above 2^-40") || !strings.Contains(w, "wrong outputs") {
		t.Errorf("warning %q", w)
	}
	d := mustCompile(t, HDL(testAdder, ""), Target{})
	if f, ok := d.FailureLog2(); !ok || f > MaxFailureLog2 || d.FailureWarning() != "" {
		t.Errorf("default set: 2^%v ok %v, warning %q", f, ok, d.FailureWarning())
	}
	if _, ok := mustCompile(t, HDL(testAdder, ""), toyBGV).FailureLog2(); ok {
		t.Error("bgv predicts a failure")
	}
}

// TestSourceMemoryBudget: Source.MemoryBudget bounds HDL elaboration (F4).
func TestSourceMemoryBudget(t *testing.T) {
	src := HDL("circuit m(a: u256, b: u256) -> (p: u256) { p = a * b; }", "")
	src.MemoryBudget = 8 << 20
	if _, err := LoadCircuit(src, ""); err == nil || !strings.Contains(err.Error(), "over the memory budget of 8 MiB") {
		t.Errorf("8 MiB budget: %v", err)
	}
	src.MemoryBudget = 1 << 30
	if _, err := LoadCircuit(src, ""); err != nil {
		t.Errorf("1 GiB budget: %v", err)
	}
}

// TestBGVDepthStyleNeverDeeper: on BGV, StyleDepth compiles both HDL
// lowerings through the depth passes and keeps the lower AND-depth, so it
// is never deeper nor, at equal depth, costlier than StyleSize (F1: a
// 64x64->128 multiply gave 17 against 15).
func TestBGVDepthStyleNeverDeeper(t *testing.T) {
	const mul = `circuit m(a: u32, b: u32) -> (lo: u32, hi: u32) { let p = (a as u64)*(b as u64); lo = p[31:0]; hi = p[63:32]; }`
	dir := t.TempDir()
	path := filepath.Join(dir, "mul.hdl")
	if err := os.WriteFile(path, []byte(mul), 0o644); err != nil {
		t.Fatal(err)
	}
	tg := Target{Engine: "bgv", Params: "ToyM257Deep", Insecure: true}
	size := mustCompile(t, File(path), tg)
	tg.Style = StyleDepth
	depth := mustCompile(t, File(path), tg)
	ss, ds := size.Stats(), depth.Stats()
	if ds.AndDepth > ss.AndDepth || ds.AndDepth == ss.AndDepth && ds.Costly > ss.Costly {
		t.Errorf("depth style: AND-depth %d, %d multiplications; size style: %d, %d", ds.AndDepth, ds.Costly, ss.AndDepth, ss.Costly)
	}
	// The kept lowering still computes the function.
	in := randomInputs(depth, 4, 7)
	for _, v := range in {
		got, err := depth.EvalPlain(v)
		if err != nil {
			t.Fatal(err)
		}
		a, b := v["a"][0].Uint64(), v["b"][0].Uint64()
		if p := a * b; got["lo"][0].Uint64() != p&0xffffffff || got["hi"][0].Uint64() != p>>32 {
			t.Errorf("%d*%d: lo %v hi %v", a, b, got["lo"][0], got["hi"][0])
		}
	}
}

// TestEmptySource: an empty Source (or FromCircuit(nil)) is a library
// error, not "open : no such file" or a panic (F11, F10).
func TestEmptySource(t *testing.T) {
	for _, src := range []Source{{}, FromCircuit(nil)} {
		if _, err := Compile(src, toyFHEW); err == nil || !strings.Contains(err.Error(), "empty Source") {
			t.Errorf("Compile(%+v): %v", src, err)
		}
	}
}

// TestKeyMismatchSaysWhatToDo: a key of another set names the fix (F16).
func TestKeyMismatchSaysWhatToDo(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	ck, _, err := GenerateKeysFor(Target{Params: "ToyGINX", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ck.Encrypt(p, randomInputs(p, 1, 1)...); err == nil || !strings.Contains(err.Error(), "GenerateKeys") {
		t.Errorf("mismatch: %v", err)
	}
}
