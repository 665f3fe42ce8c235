package fhew

import (
	"errors"
	"fmt"
	"sort"
)

// The predefined sets by name (namedSets, params.go): listing, grouping by
// security and lookup. A file of its own so that params.go, which holds the
// literals and their validation, stays under the house limit.

// Names returns the names of the predefined parameter sets, sorted.
func Names() []string {
	out := make([]string, 0, len(namedSets))
	for k := range namedSets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// withoutLabels is l without its descriptive fields (BelowTarget,
// Security), which key files do not record: the part that defines the scheme.
func (l ParamsLiteral) withoutLabels() ParamsLiteral {
	l.BelowTarget, l.Security = false, ""
	if l.CMux != nil {
		c := *l.CMux
		c.Security = ""
		l.CMux = &c
	}
	return l
}

// SecureNames returns the predefined sets that reach 128-bit security (not
// Insecure, not BelowTarget), sorted.
func SecureNames() []string {
	return namesWhere(func(l ParamsLiteral) bool { return !l.Insecure && !l.BelowTarget })
}

// ReproductionNames returns the predefined sets kept to reproduce published
// tables that fall short of 128-bit security (BelowTarget), sorted.
func ReproductionNames() []string {
	return namesWhere(func(l ParamsLiteral) bool { return !l.Insecure && l.BelowTarget })
}

// InsecureNames returns the predefined test-only (Toy) sets, sorted.
func InsecureNames() []string { return namesWhere(func(l ParamsLiteral) bool { return l.Insecure }) }

func namesWhere(keep func(ParamsLiteral) bool) []string {
	var out []string
	for _, name := range Names() {
		if keep(namedSets[name]) {
			out = append(out, name)
		}
	}
	return out
}

// ErrInsecure reports an attempt to load an insecure (Toy) set outside tests
// without allowing it explicitly.
var ErrInsecure = errors.New("fhew: insecure parameter set")

// insecureAllowedInTests lets this package's own tests load Toy sets
// without the flag (insecure_test.go sets it; TestInsecureRefused flips it
// to check the refusal). Product code never sets it: the one switch for
// insecure sets is the caller's allowInsecure (hcc.Target.Insecure).
var insecureAllowedInTests bool

// ParamsByName builds a predefined set. Insecure (Toy) sets are refused
// unless allowInsecure is true.
func ParamsByName(name string, allowInsecure bool) (Params, error) {
	lit, ok := namedSets[name]
	if !ok {
		return Params{}, fmt.Errorf("fhew: unknown parameter set %q (known: %v)", name, Names())
	}
	return newParams(lit, allowInsecure)
}
