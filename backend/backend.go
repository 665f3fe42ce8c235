// Package backend defines what the runtime needs from an encrypted engine.
// Concrete schemes live in subpackages (backend/fhew, backend/bgv) and share
// modular arithmetic from backend/ring; only cmd/hcc picks a concrete one.
package backend

import "github.com/hcc-fhe/hcc/ir"

// Ciphertext is an encrypted bit (FHEW) or an encrypted vector of bits, one
// per slot (BGV). Each backend defines its concrete type; the runtime only
// moves ciphertexts between a backend's own calls.
type Ciphertext any

// LUTCapability answers the optimizer's question: can one bootstrap evaluate
// this k-input Boolean function?
type LUTCapability interface {
	// MaxLUTInputs is the largest k for which some function is supported.
	MaxLUTInputs() int
	// CanEvalLUT reports whether the k-input truth table (bit i = f(i), input 0
	// least significant) is evaluable in one bootstrap.
	CanEvalLUT(table uint64, k int) bool
}

// Capabilities describe what an evaluator computes natively.
type Capabilities struct {
	// Ops lists the node ops Eval accepts (OpLUT subject to LUT).
	Ops []ir.Op
	// LUT is nil when the backend has no multi-input lookup tables.
	LUT LUTCapability
	// Slots is the number of independent circuit instances one ciphertext
	// carries (1 for FHEW, ℓ for packed BGV).
	Slots int
	// Cost, if set, is the number of expensive operations (bootstraps for
	// FHEW) one node of op takes; the runtime counts progress and statistics
	// with it. Nil means one for every op but NOT, constants and inputs.
	Cost func(op ir.Op) int
	// CostName names what Cost counts, in the plural, as progress lines and
	// statistics print it: "bootstraps" (FHEW), "multiplications" (BGV).
	CostName string
}

// OpCostName returns c.CostName; when it is empty, "bootstraps" if Cost is
// nil (the default counts bootstrapped ops) and "costly operations" if not.
func (c Capabilities) OpCostName() string {
	switch {
	case c.CostName != "":
		return c.CostName
	case c.Cost == nil:
		return "bootstraps"
	}
	return "costly operations"
}

// OpCost returns c.Cost(op), or the default when Cost is nil.
func (c Capabilities) OpCost(op ir.Op) int {
	if c.Cost != nil {
		return c.Cost(op)
	}
	if op.IsBootstrapped() {
		return 1
	}
	return 0
}

// NodeCost is OpCost with OpCostName as the IR's cost model, so that
// ir.Circuit.StatsFor counts what a run on this evaluator counts.
func (c Capabilities) NodeCost() ir.Cost { return ir.Cost{Name: c.OpCostName(), Of: c.OpCost} }

// Supports reports whether op is in c.Ops.
func (c Capabilities) Supports(op ir.Op) bool {
	for _, o := range c.Ops {
		if o == op {
			return true
		}
	}
	return false
}

// Evaluator is the server side of a backend: it holds evaluation keys only.
// It is immutable and shared by all workers.
type Evaluator interface {
	Capabilities() Capabilities
	// NewWorker returns per-goroutine state (scratch buffers); a Worker is
	// never used by two goroutines at once.
	NewWorker() Worker
}

// Worker evaluates nodes with its own scratch space.
type Worker interface {
	// NewCiphertext allocates a ciphertext that Eval and Constant can write.
	NewCiphertext() Ciphertext
	// Constant writes a trivial (noiseless, public) encryption of v to out.
	Constant(v bool, out Ciphertext)
	// Eval computes node n from the ciphertexts of its fanins into out.
	// out never aliases an element of in.
	Eval(n *ir.Node, in []Ciphertext, out Ciphertext) error
}
