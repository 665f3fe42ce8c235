// Package lang is the front end of hcc: it parses the hcc HDL (a small,
// typed, combinational hardware language), resolves imports, type-checks,
// evaluates everything known at compile time, inlines functions and lowers
// the rest to an ir.Circuit through an *ir.Builder. Every gate carries the
// "file:line:col" of the construct that produced it.
//
// Compile, CompileFile and CircuitNames are the entry points. Errors are an
// ErrorList: each entry prints as "file:line:col: message", the source line
// and a caret, and the list is in position order. Syntax errors stop at the
// first one per file; semantic checking continues past errors (a failed
// expression becomes a silent "bad" value) so several are reported together.
//
// # Program structure
//
// A file holds imports, then const, table, fn and circuit declarations in any
// order. Imports are relative to the importing file (on disk, or in
// Options.FS when a Go program embeds its HDL), or start with "stdlib/" for
// the library embedded in package stdlib. All declarations of the root
// file and of every file it imports (transitively) share one global
// namespace: a second declaration of a name is an error, as is an import
// cycle. Compile elaborates one circuit of the root file (Options.Circuit,
// or the only one); the root file's functions that this circuit does not
// call are still type-checked on their own, with fresh inputs as parameters.
// Other circuits and the functions of imported files are checked only when
// used.
//
// # Types
//
// bit (the same type as u1), uN and sN for 1 <= N <= 1024, and arrays T[N].
// Dimensions are written outermost first: u4[3][2] is 3 elements of type
// u4[2], indexed x[i][j] with i < 3, and laid out row-major in an ir.Bus
// with Dims [3 2]. Circuit inputs and outputs may be arrays. Integer
// literals (decimal, 0x, 0b, with _ separators) and consts without a type
// are untyped integers of unlimited precision (up to 4096 bits) that take a
// type from their context: the declared type of a let, an assignment's
// target, a parameter, a return type, or the other operand of a binary
// operator. A literal that does not fit that type is an error ("constant
// 300 overflows u8"); there is no implicit conversion between typed values.
//
// # Operators
//
// Operands of binary operators must have identical types (width and
// signedness), except that one side may be an untyped integer. Precedence
// follows Go, from loosest: c ? a : b; comparisons (non-associative);
// + - | ^; * / % << >> &; as; prefix ~ ! -; then x[i], x[hi:lo] and
// primaries.
//
//   - + - * wrap at the operand width (two's complement); unary - negates.
//   - / and % need a compile-time constant divisor (a runtime divisor is an
//     error, and so is a zero one). Signed division truncates toward zero and
//     the remainder has the dividend's sign (Go); MIN / -1 wraps to MIN.
//   - & | ^ ~ are bitwise on uN and sN; ! only applies to bit.
//   - == != < <= > >= give a bit; the signedness comes from the operand type
//     and comparing uN with sN is an error. == and != also compare arrays.
//   - << >> keep the left operand's type; >> is arithmetic on sN. A constant
//     amount selects wires; a runtime amount (unsigned) builds a barrel
//     shifter. Amounts >= the width give 0 (or all sign bits for >> on sN).
//   - c ? a : b needs c: bit. A compile-time c elaborates only the taken arm.
//   - x[i] on an array is an element, on an integer a bit; x[hi:lo] is the
//     bits hi..lo as u(hi-lo+1) (constant bounds). A runtime index (unsigned)
//     builds a mux tree; a runtime index out of range reads 0. Constant
//     indices are bounds-checked at compile time.
//   - {a, b, ...} concatenates typed integers, a most significant; unsigned.
//   - x as T: zero- or sign-extends according to the SOURCE's signedness,
//     or truncates. On an untyped integer it wraps to T (so -1 as u8 is 255).
//   - Tables are constant arrays: a constant index folds, a runtime index
//     builds the mux tree over constants, which the builder folds to logic.
//
// # Statements
//
// let x (: T)? (= e)?; declares or shadows a name in the current block. A let
// without a value leaves x unassigned (reading an unassigned element is an
// error). A let of an untyped value makes a compile-time integer variable,
// which may only be reassigned untyped values. Assignment targets a
// variable, an output, or an array element (constant or runtime index; a
// runtime index writes every element through a mux and needs the array
// fully assigned). Inputs and loop variables are read-only.
//
// for i in A..B { } unrolls with the untyped i from A up to B-1; A and B must
// be compile-time constants and a loop runs at most 65536 times.
//
// if c { } else { }: a compile-time c elaborates only the taken branch. A
// runtime c (a bit) elaborates both branches from the same state and then
// merges every variable as c ? then : else. An untyped variable given
// different values in the two branches is an error. Every output must be
// assigned on every path when the circuit ends.
//
// Functions (fn f(x: T, ...) -> R { }) are inlined at each call; recursion
// (direct or not) is an error. return may appear anywhere, also inside a
// runtime if: returns are predicated (the result is a mux over the paths
// that returned), and a function must return on every path. Statements after
// an unconditional return are an error; a return under a compile-time
// condition (a constant argument, say) only ends that call's elaboration.
//
// Elaboration has budgets (gates, steps, loop length, call depth, bracket
// nesting) so that no input makes the compiler run away; exceeding one is
// an error, never a crash.
package lang
