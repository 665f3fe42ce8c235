// Package circuittest is hcc's one test kit for circuit equivalence, used
// by the tests of every package that transforms or runs circuits (optimize,
// runtime, the backends, lang, the root package) instead of a copy per
// package:
//
//   - Random draws unsimplified random circuits over every gate op (NOT,
//     the two-input gates, MUX, LUTs of 1-6 inputs, PARITY) with constant
//     fanins, repeated fanins and dead logic; Config selects ops, weights,
//     widths, duplicates and depth.
//   - Vectors returns the input words to check a circuit on: every input
//     assignment up to ExhaustiveLimit (16) input bits, beyond that edge
//     cases (all zeros, all ones, alternating, halves, every one-hot and
//     every one-cold vector) followed by random vectors.
//   - Compare and Equivalent check that two circuits with the same
//     interface compute the same function on those vectors, naming the
//     first differing output bit and the input that shows it.
//   - RunPass and CheckPass run a pass the way STYLE.md asks: verify,
//     pass, verify, then simulate the old and the new circuit; they also
//     fail a pass that modifies its input.
//
// The package imports only ir (so ir's own tests, which it cannot serve
// without an import cycle, use it from package ir_test).
package circuittest
