package fhew

import (
	"bytes"
	"slices"
	"testing"
)

// TestSetLabels: every predefined set states its security, the paper's
// STD128_LMKCDEY_G is listed apart from the 128-bit sets, and the three
// lists partition Names().
func TestSetLabels(t *testing.T) {
	secure, repro, toy := SecureNames(), ReproductionNames(), InsecureNames()
	if !slices.Contains(repro, STD128_LMKCDEY_G.Name) || slices.Contains(secure, STD128_LMKCDEY_G.Name) {
		t.Errorf("STD128_LMKCDEY_G: secure %v, reproduction %v; want it among the reproductions only", secure, repro)
	}
	for _, name := range []string{STD128_T.Name, STD128_GINX.Name, STD128_LOWFAIL_T.Name, STD128_LOWFAIL3_T.Name} {
		if !slices.Contains(secure, name) {
			t.Errorf("%s missing from SecureNames %v", name, secure)
		}
	}
	all := slices.Concat(secure, repro, toy)
	slices.Sort(all)
	if !slices.Equal(all, Names()) {
		t.Errorf("secure+reproduction+insecure = %v, want Names() = %v", all, Names())
	}
	for _, name := range Names() {
		if namedSets[name].Security == "" {
			t.Errorf("%s has no Security statement", name)
		}
	}
}

// TestKeyFileIgnoresLabels: a key written and read back still matches its
// set although the file does not record the descriptive fields.
func TestKeyFileIgnoresLabels(t *testing.T) {
	p, err := ParamsByName(STD128_LMKCDEY_G.Name, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Literal().Security == "" || !p.Literal().BelowTarget {
		t.Fatal("labels lost by ParamsByName")
	}
	var b bytes.Buffer
	writeLiteral(&b, p.Literal())
	r := &reader{buf: b.Bytes()}
	if got := readLiteral(r); got != p.Literal().withoutLabels() {
		t.Errorf("round trip: %+v, want %+v", got, p.Literal().withoutLabels())
	}
}
