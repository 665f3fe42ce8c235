// Package optimize holds hcc's circuit passes. Each pass is a value with a
// name, a one-line contract and a Run function over the IR (after the Go
// compiler's SSA pass table): it takes a verified circuit and returns a new,
// verified circuit computing the same function. A Pipeline runs passes in
// order and checks their ordering constraints before it starts.
package optimize

import (
	"fmt"

	"github.com/hcc-fhe/hcc/ir"
)

// Pass is one circuit transformation.
type Pass struct {
	// Name identifies the pass in pipelines, logs and -v output.
	Name string
	// Doc states what the pass requires and what it ensures.
	Doc string
	// Run transforms c. It must not modify c; it returns the new circuit.
	Run func(c *ir.Circuit) (*ir.Circuit, error)
}

// Constraint says that pass Before must run before pass After whenever both
// are in a pipeline.
type Constraint struct{ Before, After string }

// Pipeline is an ordered list of passes.
type Pipeline struct {
	Passes []Pass
	// Check runs ir.Verify after every pass (tests and --check turn it on).
	Check bool
	// Observe, if set, is called after each pass with the result, e.g. to
	// print statistics for `hcc compile -v`.
	Observe func(pass string, c *ir.Circuit)
}

// constraints lists the ordering rules between known passes, checked by
// Pipeline.Validate: dead-gate removal cleans up what the rewriting passes
// orphan, so it must follow them.
var constraints = []Constraint{
	{"fold", "dce"},
	{"hash", "dce"},
	{"absorb-not", "dce"},
	{"fold", "lut-map"}, // lut-map assumes no constant fanins and merged duplicates
	{"and-depth", "dce"},
}

// lutMapName is the name of every LUTMap pass (built per target, so it is
// not a package-level value like the others).
const lutMapName = "lut-map"

// knownPasses are the names the constraints may use.
var knownPasses = []string{Fold.Name, Hash.Name, DCE.Name, AbsorbNot.Name, AndDepth.Name, lutMapName}

// A constraint that names no pass would never apply, so a renamed or
// misspelt pass would silently drop it: refuse to start instead, as the Go
// compiler's SSA pass table does ("pass %s not found").
func init() {
	if err := checkConstraints(constraints, knownPasses); err != nil {
		panic("optimize: " + err.Error())
	}
}

// checkConstraints reports the first constraint in cs naming a pass that is
// not in known.
func checkConstraints(cs []Constraint, known []string) error {
	isKnown := map[string]bool{}
	for _, name := range known {
		isKnown[name] = true
	}
	for _, c := range cs {
		for _, name := range []string{c.Before, c.After} {
			if !isKnown[name] {
				return fmt.Errorf("ordering constraint %q before %q: pass %q not found", c.Before, c.After, name)
			}
		}
	}
	return nil
}

// Validate checks the pipeline's ordering constraints.
func (p *Pipeline) Validate() error {
	index := map[string]int{} // first occurrence of each pass
	for i, ps := range p.Passes {
		if ps.Run == nil {
			return fmt.Errorf("pass %q has no Run function", ps.Name)
		}
		if _, seen := index[ps.Name]; !seen {
			index[ps.Name] = i
		}
	}
	for _, c := range constraints {
		bi, okB := index[c.Before]
		ai, okA := index[c.After]
		if okB && okA && bi > ai {
			return fmt.Errorf("pipeline runs %q before %q, but %q must come first", c.After, c.Before, c.Before)
		}
	}
	return nil
}

// Run applies the passes in order.
func (p *Pipeline) Run(c *ir.Circuit) (*ir.Circuit, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for _, ps := range p.Passes {
		next, err := ps.Run(c)
		if err != nil {
			return nil, fmt.Errorf("pass %s: %w", ps.Name, err)
		}
		if p.Check {
			if err := ir.Verify(next); err != nil {
				return nil, fmt.Errorf("internal error in pass %q: %w", ps.Name, err)
			}
		}
		if p.Observe != nil {
			p.Observe(ps.Name, next)
		}
		c = next
	}
	return c, nil
}

// ForLUTs returns the pipeline for a bootstrapped backend with multi-input
// lookup tables (FHEW): cleanup, NOT absorption, then LUT mapping against the
// target's capability with up to maxInputs inputs per LUT.
func ForLUTs(target LUTTarget, maxInputs int) *Pipeline {
	return &Pipeline{Passes: []Pass{Fold, AbsorbNot, DCE, LUTMap(target, maxInputs)}}
}

// ForDepth returns the pipeline for a leveled backend (BGV), where an AND
// costs a ciphertext level and XOR and NOT are free: cleanup, AND-depth
// reduction, then removal of the logic it replaced.
func ForDepth() *Pipeline {
	return &Pipeline{Passes: []Pass{Fold, AndDepth, DCE}}
}

// Default returns the backend-independent cleanup pipeline: constant folding
// with structural hashing, then dead-gate removal.
func Default() *Pipeline {
	return &Pipeline{Passes: []Pass{Fold, DCE}}
}
