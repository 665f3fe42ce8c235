package lang

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/stdlib"
)

// TestDepthStyleNeverDeeper checks the promise of -style depth: never a
// higher AND-depth than -style size, and the same function. A popcount of
// an XOR was 9 against 6 in the depth lowering alone, and the ReLU layer
// 19 against 16.
func TestDepthStyleNeverDeeper(t *testing.T) {
	for _, tc := range []struct {
		file     string
		maxDepth int // what the size lowering reaches
	}{
		{"hamming.hdl", 6},
		{"relu_layer.hdl", 16},
		{"product_split.hdl", 63},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "depth", tc.file)
			size, err := CompileFile(path, Options{Style: stdlib.SizeOptimized})
			if err != nil {
				t.Fatal(err)
			}
			depth, err := CompileFile(path, Options{Style: stdlib.DepthOptimized})
			if err != nil {
				t.Fatal(err)
			}
			ds, dd := size.Stats().AndDepth, depth.Stats().AndDepth
			if dd > ds || ds > tc.maxDepth {
				t.Errorf("AND-depth: size %d, depth %d; want depth <= size <= %d", ds, dd, tc.maxDepth)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			if err := circuittest.Compare(size, depth, circuittest.Vectors(rng, size.NumInputBits(), 4)); err != nil {
				t.Error(err)
			}
		})
	}
}
