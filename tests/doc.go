// Package tests holds hcc's end-to-end tests: whole circuits compiled from HDL
// or imported from Bristol files, run through the CLI and (once the backends
// land) encrypted, and compared with the plaintext evaluator. It also checks
// that package dependencies point the way the architecture says.
package tests
