package circuittest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// RunPass runs a pass the way STYLE.md asks: it verifies c (ir.Verify),
// runs run on it, verifies the result, checks that c was left unchanged,
// and simulates the old and the new circuit on Vectors (every input up to
// ExhaustiveLimit bits, else the edge cases and rounds×64 random vectors).
// It returns the new circuit, or an error naming the pass and the first
// check that failed.
func RunPass(name string, run func(*ir.Circuit) (*ir.Circuit, error), c *ir.Circuit, rounds int) (*ir.Circuit, error) {
	if err := ir.Verify(c); err != nil {
		return nil, fmt.Errorf("%s: input circuit: %w", name, err)
	}
	orig := c.Clone()
	d, err := run(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if d == nil {
		return nil, fmt.Errorf("%s returned no circuit", name)
	}
	if !reflect.DeepEqual(orig, c.Clone()) { // Clone normalises empty slices
		return nil, fmt.Errorf("%s modified its input circuit", name)
	}
	if err := ir.Verify(d); err != nil {
		return nil, fmt.Errorf("%s produced an invalid circuit: %w", name, err)
	}
	rng := rand.New(rand.NewPCG(uint64(c.NumInputBits()), uint64(len(c.Nodes))))
	if err := Compare(orig, d, Vectors(rng, c.NumInputBits(), rounds)); err != nil {
		return nil, fmt.Errorf("%s changed the function: %w", name, err)
	}
	return d, nil
}

// CheckPass is RunPass with DefaultRounds that fails t on any error.
func CheckPass(t testing.TB, name string, run func(*ir.Circuit) (*ir.Circuit, error), c *ir.Circuit) *ir.Circuit {
	t.Helper()
	d, err := RunPass(name, run, c, DefaultRounds)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
