// Package testenv locates the read-only material tests share with the rest of
// the workplace: shared/circuits, the external Bristol circuits that are the
// best independent check of hcc's importer, optimizer and backends.
//
// A plain clone of the repository does not have shared/ beside it, so the
// tests that need it skip there with one line; CI (CI=true) and anyone who
// sets HCC_REQUIRE_SHARED=1 gets a failure instead, so that a misplaced
// checkout cannot silently skip the external circuits where they matter.
package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// RequireShared reports whether a missing shared/ directory must fail the
// tests rather than skip them: under CI (CI=true, as CI sets it) or when
// HCC_REQUIRE_SHARED is a true value.
func RequireShared() bool {
	for _, v := range []string{"CI", "HCC_REQUIRE_SHARED"} {
		if b, err := strconv.ParseBool(os.Getenv(v)); err == nil && b {
			return true
		}
	}
	return false
}

// FindSharedCircuits reports where shared/circuits is: beside the checkout
// (CI lays shared/ out next to the repository, e.g. /work/shared beside
// /work/main), or under the directory HCC_SHARED names. The checkout is the
// nearest parent of the working directory holding go.mod, so a shared/ that
// merely sits somewhere above (say /tmp/shared for a clone in /tmp/x/y) is
// not picked up by accident.
func FindSharedCircuits() (string, bool) {
	if dir := os.Getenv("HCC_SHARED"); dir != "" {
		return isDir(filepath.Join(dir, "circuits"))
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return isDir(filepath.Join(filepath.Dir(dir), "shared", "circuits"))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func isDir(p string) (string, bool) {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p, true
	}
	return "", false
}

// missing is the one line a test prints when shared/ is absent.
const missing = "shared/circuits not found beside the checkout (expected ../shared next to the directory holding go.mod, or HCC_SHARED=DIR)"

// SharedCircuits returns the path of shared/circuits. When it is missing the
// test is skipped with one line, or fails if RequireShared says so.
func SharedCircuits(tb testing.TB) string {
	tb.Helper()
	p, ok := FindSharedCircuits()
	if ok {
		return p
	}
	if RequireShared() {
		tb.Fatal(missing + "; required because CI or HCC_REQUIRE_SHARED is set")
	}
	tb.Skip("skipped: " + missing + "; set HCC_REQUIRE_SHARED=1 to make this a failure")
	return ""
}
