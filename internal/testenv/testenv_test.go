package testenv

import (
	"os"
	"testing"
)

func TestRequireShared(t *testing.T) {
	for _, c := range []struct {
		ci, req string
		want    bool
	}{
		{"", "", false},
		{"true", "", true},
		{"false", "", false},
		{"", "1", true},
		{"", "no", false},
		{"garbage", "", false},
	} {
		t.Setenv("CI", c.ci)
		t.Setenv("HCC_REQUIRE_SHARED", c.req)
		if got := RequireShared(); got != c.want {
			t.Errorf("CI=%q HCC_REQUIRE_SHARED=%q: RequireShared() = %v, want %v", c.ci, c.req, got, c.want)
		}
	}
}

// TestSharedCircuitsMissing runs from a directory without shared/ above it:
// the lookup must report it missing, and SharedCircuits must skip (not
// required) or fail (required).
func TestSharedCircuitsMissing(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if p, ok := FindSharedCircuits(); ok {
		t.Skipf("a shared/circuits exists above the temporary directory (%s); cannot test its absence", p)
	}
	for _, required := range []bool{false, true} {
		rec := &recorder{TB: t}
		if required {
			t.Setenv("HCC_REQUIRE_SHARED", "1")
		} else {
			t.Setenv("HCC_REQUIRE_SHARED", "0")
			t.Setenv("CI", "")
		}
		func() {
			defer func() { _ = recover() }() // recorder stops the call like Skip/Fatal do
			SharedCircuits(rec)
		}()
		if required && !rec.failed {
			t.Errorf("required: SharedCircuits did not fail")
		}
		if !required && !rec.skipped {
			t.Errorf("not required: SharedCircuits did not skip")
		}
	}
	t.Chdir(wd)
}

// recorder notes Skip and Fatal instead of ending the test.
type recorder struct {
	testing.TB
	failed, skipped bool
}

type stop struct{}

func (r *recorder) Helper()           {}
func (r *recorder) Fatal(args ...any) { r.failed = true; panic(stop{}) }
func (r *recorder) Skip(args ...any)  { r.skipped = true; panic(stop{}) }
