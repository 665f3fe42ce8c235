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

// FindSharedCircuits walks up from the working directory looking for
// shared/circuits (CI checks shared/ out beside the repository, e.g.
// /work/shared next to /work/main) and reports whether it found it.
func FindSharedCircuits() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, "shared", "circuits")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// missing is the one line a test prints when shared/ is absent.
const missing = "shared/circuits not found in any parent of the working directory (expected shared/ beside the checkout)"

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
