package testenv

import (
	"os"
	"path/filepath"
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
	// A checkout (go.mod) with a shared/ two levels up but not beside it:
	// not found.
	top := t.TempDir()
	repo := filepath.Join(top, "a", "repo")
	if err := os.MkdirAll(filepath.Join(top, "shared", "circuits"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HCC_SHARED", "")
	t.Chdir(filepath.Join(repo, "pkg"))
	if p, ok := FindSharedCircuits(); ok {
		t.Fatalf("found %s, which is not beside the checkout", p)
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

// TestSharedCircuitsBeside: shared/ next to the directory holding go.mod is
// found from any package below it, and HCC_SHARED overrides the lookup.
func TestSharedCircuitsBeside(t *testing.T) {
	top := t.TempDir()
	want := filepath.Join(top, "shared", "circuits")
	for _, d := range []string{want, filepath.Join(top, "main", "a", "b")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(top, "main", "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HCC_SHARED", "")
	t.Chdir(filepath.Join(top, "main", "a", "b"))
	if p, ok := FindSharedCircuits(); !ok || p != want {
		t.Errorf("FindSharedCircuits() = %q, %v; want %q", p, ok, want)
	}
	t.Setenv("HCC_SHARED", filepath.Join(top, "nowhere"))
	if p, ok := FindSharedCircuits(); ok {
		t.Errorf("HCC_SHARED=nowhere: found %q", p)
	}
	t.Setenv("HCC_SHARED", filepath.Join(top, "shared"))
	if p, ok := FindSharedCircuits(); !ok || p != want {
		t.Errorf("HCC_SHARED: FindSharedCircuits() = %q, %v; want %q", p, ok, want)
	}
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
