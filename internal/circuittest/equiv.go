package circuittest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// ExhaustiveLimit is the largest number of input bits whose every
// assignment Vectors enumerates (2^16 assignments are 1024 words of 64
// lanes).
const ExhaustiveLimit = 16

// DefaultRounds is the number of random 64-lane rounds Equivalent adds
// after the edge cases when a circuit has more than ExhaustiveLimit inputs.
const DefaultRounds = 16

// Vectors returns input words for a circuit of n input bits, each element
// one ir.Circuit.EvalBits input (word k holds input bit k of 64 lanes, one
// assignment per lane). Up to ExhaustiveLimit bits they are every
// assignment (lane l of element e is the assignment 64e+l; below 64
// assignments the lanes repeat them). Beyond, the edge cases come first:
// all zeros, all ones, 0101..., 1010..., the low and the high half set,
// every one-hot and every one-cold assignment, with the last element's
// free lanes random; then rounds elements of random lanes.
func Vectors(rng *rand.Rand, n, rounds int) [][]uint64 {
	if n <= ExhaustiveLimit {
		var out [][]uint64
		for base := 0; base < 1<<n; base += 64 {
			in := make([]uint64, n)
			for k := range in {
				for lane := 0; lane < 64; lane++ {
					in[k] |= uint64((base+lane)>>k&1) << lane
				}
			}
			out = append(out, in)
		}
		return out
	}
	edges := edgeCases(n)
	var out [][]uint64
	for start := 0; start < len(edges); start += 64 {
		in := make([]uint64, n)
		for k := range in {
			in[k] = rng.Uint64() // free lanes of the last element stay random
		}
		for lane := 0; lane < 64 && start+lane < len(edges); lane++ {
			bit := uint64(1) << lane
			for k, v := range edges[start+lane] {
				in[k] = in[k]&^bit | uint64(btoi(v))<<lane
			}
		}
		out = append(out, in)
	}
	for range rounds {
		in := make([]uint64, n)
		for k := range in {
			in[k] = rng.Uint64()
		}
		out = append(out, in)
	}
	return out
}

// edgeCases lists the edge-case assignments of n input bits.
func edgeCases(n int) [][]bool {
	all := func(f func(k int) bool) []bool {
		v := make([]bool, n)
		for k := range v {
			v[k] = f(k)
		}
		return v
	}
	cases := [][]bool{
		all(func(int) bool { return false }),
		all(func(int) bool { return true }),
		all(func(k int) bool { return k&1 == 1 }),
		all(func(k int) bool { return k&1 == 0 }),
		all(func(k int) bool { return k < n/2 }),
		all(func(k int) bool { return k >= n/2 }),
	}
	for j := 0; j < n; j++ {
		cases = append(cases, all(func(k int) bool { return k == j }), all(func(k int) bool { return k != j }))
	}
	return cases
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Compare returns nil if a and b have the same interface (input and output
// buses: names, widths, signedness, shapes) and agree on every output bit
// for every input word set in vectors; otherwise an error naming the first
// differing output bit and an input assignment that shows it.
func Compare(a, b *ir.Circuit, vectors [][]uint64) error {
	if err := sameInterface(a, b); err != nil {
		return err
	}
	for _, in := range vectors {
		if len(in) != a.NumInputBits() {
			return fmt.Errorf("circuittest: vector of %d bits for %d input bits", len(in), a.NumInputBits())
		}
		oa, ob := a.EvalBits(in), b.EvalBits(in)
		for k := range oa {
			if d := oa[k] ^ ob[k]; d != 0 {
				lane := 0
				for d>>lane&1 == 0 {
					lane++
				}
				return fmt.Errorf("circuittest: %s and %s differ at output %s (%d vs %d) on input %s",
					a.Name, b.Name, bitName(a.Outputs, k), oa[k]>>lane&1, ob[k]>>lane&1, assignment(a, in, lane))
			}
		}
	}
	return nil
}

func sameInterface(a, b *ir.Circuit) error {
	shape := func(bs []ir.Bus) string {
		var s []string
		for _, bus := range bs {
			s = append(s, fmt.Sprintf("%s:%d:%v:%v", bus.Name, bus.Width, bus.Signed, bus.Dims))
		}
		return strings.Join(s, " ")
	}
	if !reflect.DeepEqual(shape(a.Inputs), shape(b.Inputs)) || !reflect.DeepEqual(shape(a.Outputs), shape(b.Outputs)) ||
		a.NumInputBits() != b.NumInputBits() || a.NumOutputBits() != b.NumOutputBits() {
		return fmt.Errorf("circuittest: interfaces differ: %s -> %s vs %s -> %s",
			shape(a.Inputs), shape(a.Outputs), shape(b.Inputs), shape(b.Outputs))
	}
	return nil
}

// bitName names flat bit k of buses, e.g. "y[3]" (bit 3 of bus y).
func bitName(buses []ir.Bus, k int) string {
	for _, bus := range buses {
		if k < len(bus.Bits) {
			return fmt.Sprintf("%s[%d]", bus.Name, k)
		}
		k -= len(bus.Bits)
	}
	return fmt.Sprintf("bit %d", k)
}

// assignment prints lane's input bits per bus, most significant bit first
// (as 0b...; buses wider than 64 bits in hex).
func assignment(c *ir.Circuit, in []uint64, lane int) string {
	var parts []string
	off := 0
	for _, bus := range c.Inputs {
		var sb strings.Builder
		for j := len(bus.Bits) - 1; j >= 0; j-- {
			sb.WriteByte(byte('0' + in[off+j]>>lane&1))
		}
		bits := sb.String()
		if len(bits) > 64 {
			bits = fmt.Sprintf("%d bits, ones at %v", len(bits), ones(in[off:off+len(bus.Bits)], lane))
		} else {
			bits = "0b" + bits
		}
		parts = append(parts, bus.Name+"="+bits)
		off += len(bus.Bits)
	}
	return strings.Join(parts, " ")
}

// ones lists the set bits of lane among words (for wide buses).
func ones(words []uint64, lane int) []int {
	var s []int
	for j, w := range words {
		if w>>lane&1 == 1 {
			s = append(s, j)
		}
	}
	if len(s) > 16 {
		s = append(s[:16], -1) // -1: more follow
	}
	return s
}

// Equivalent fails t unless a and b have the same interface and compute
// the same function: on every input assignment up to ExhaustiveLimit input
// bits, otherwise on the edge cases and DefaultRounds×64 random vectors.
func Equivalent(t testing.TB, a, b *ir.Circuit) {
	t.Helper()
	EquivalentRounds(t, a, b, DefaultRounds)
}

// EquivalentRounds is Equivalent with rounds×64 random vectors (after the
// edge cases) for circuits beyond ExhaustiveLimit inputs.
func EquivalentRounds(t testing.TB, a, b *ir.Circuit, rounds int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(a.NumInputBits()), uint64(len(a.Nodes))))
	if err := Compare(a, b, Vectors(rng, a.NumInputBits(), rounds)); err != nil {
		t.Fatal(err)
	}
}
