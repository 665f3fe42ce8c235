// Package testenv locates the read-only material tests share with the rest of
// the workplace: shared/circuits, the external Bristol circuits that are the
// best independent check of hcc's importer, optimizer and backends.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedCircuits finds shared/circuits by walking up from the working
// directory (CI checks shared/ out beside the repository, e.g. /work/shared
// next to /work/main). It fails the test when the directory is missing, so
// that a misplaced checkout cannot silently skip the external circuits.
func SharedCircuits(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "circuits")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("shared/circuits not found in any parent of the working directory (expected shared/ beside the checkout)")
		}
		dir = parent
	}
}
