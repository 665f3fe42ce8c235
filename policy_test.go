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
