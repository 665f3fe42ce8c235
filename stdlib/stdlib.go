// Package stdlib lowers integer operations to Boolean gates over an
// *ir.Builder, and embeds the HDL standard library (FS) that HDL programs
// import as "stdlib/...".
//
// Bit vectors are []ir.NodeID, least significant bit first. Every generator
// emits naive logic and relies on the builder to fold constants and share
// equal gates, so constant operands (e.g. a constant divisor) cost nothing
// extra. The generators come in two styles because the two backends price
// circuits differently: FHEW pays one bootstrap per gate (fewest gates wins),
// BGV pays noise per multiplicative level (lowest AND-depth wins).
package stdlib

import (
	"fmt"
	"math/big"

	"github.com/hcc-fhe/hcc/ir"
)

// Style selects how arithmetic is lowered.
type Style int

const (
	// SizeOptimized uses ripple-carry adders and an array multiplier: the
	// fewest gates, which is what a gate-bootstrapping backend (FHEW) pays for.
	SizeOptimized Style = iota
	// DepthOptimized uses Sklansky parallel-prefix adders, a Dadda-tree
	// multiplier and tree comparators: the lowest AND-depth, which is what a
	// leveled backend (BGV) pays for.
	DepthOptimized
)

// String returns "size" or "depth".
func (s Style) String() string {
	switch s {
	case SizeOptimized:
		return "size"
	case DepthOptimized:
		return "depth"
	}
	return fmt.Sprintf("Style(%d)", int(s))
}

// Constant returns the width low bits of v in two's complement (negative
// values wrap), as constant nodes.
func Constant(b *ir.Builder, v *big.Int, width int) []ir.NodeID {
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		mod := new(big.Int).Lsh(big.NewInt(1), uint(width))
		u.Mod(u, mod)
	}
	out := make([]ir.NodeID, width)
	for i := range out {
		out[i] = b.Const(u.Bit(i) == 1)
	}
	return out
}

// zeros returns n constant-0 bits.
func zeros(b *ir.Builder, n int) []ir.NodeID {
	out := make([]ir.NodeID, n)
	for i := range out {
		out[i] = b.Const(false)
	}
	return out
}

// notVec returns the bitwise complement of x (NOT gates are free in both backends).
func notVec(b *ir.Builder, x []ir.NodeID) []ir.NodeID {
	out := make([]ir.NodeID, len(x))
	for i, v := range x {
		out[i] = b.Not(v)
	}
	return out
}

// MuxVec returns sel ? t : f bitwise. t and f must have equal lengths.
func MuxVec(b *ir.Builder, sel ir.NodeID, t, f []ir.NodeID) []ir.NodeID {
	mustSameLen("MuxVec", t, f)
	out := make([]ir.NodeID, len(t))
	for i := range t {
		out[i] = b.Mux(sel, t[i], f[i])
	}
	return out
}

// mustSameLen panics on operands of different widths: type checking in the
// front end guarantees equal widths, so a mismatch is a caller bug.
func mustSameLen(op string, x, y []ir.NodeID) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("stdlib.%s: operand widths differ (%d and %d)", op, len(x), len(y)))
	}
}
