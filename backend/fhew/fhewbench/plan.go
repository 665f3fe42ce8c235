package fhewbench

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hcc-fhe/hcc/backend/fhew"
)

// What to measure: the rows of Table 3 from set and method names, and the
// window list of a Figure 2 sweep.

// LMKCDEYWindow is LMKCDEY's w when a set's own method is another one: the
// paper's Table 3 row and OpenFHE's default number of automorphism keys.
const LMKCDEYWindow = 10

// TableOrder is the row order of Table 3: the paper's set, OpenFHE's two,
// then hcc's low-failure sets; any other secure set follows by name
// (SecureSets).
var TableOrder = []string{"STD128_LMKCDEY_G", "STD128_T", "STD128_GINX", "STD128_LOWFAIL_T", "STD128_LOWFAIL3_T"}

// SecureSets lists the named sets that are not Toy sets, in TableOrder.
func SecureSets() []string {
	var out []string
	for _, name := range TableOrder {
		if p, err := fhew.ParamsByName(name, false); err == nil && !p.Literal().Insecure {
			out = append(out, name)
		}
	}
	for _, name := range fhew.Names() {
		if p, err := fhew.ParamsByName(name, false); err == nil && !p.Literal().Insecure && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// ParseWindows reads a window list such as "1-12" or "1,2,5" (or a mix).
func ParseWindows(s string) ([]int, error) {
	var ws []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad window list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("bad window list %q: %w", s, err)
			}
		}
		if a < 1 || b < a {
			return nil, fmt.Errorf("bad window list %q: windows are positive, ranges increasing", s)
		}
		for w := a; w <= b; w++ {
			ws = append(ws, w)
		}
	}
	return ws, nil
}

// ParseMethod reads a blind-rotation method name, ignoring case.
func ParseMethod(s string) (fhew.Method, error) {
	for _, m := range []fhew.Method{fhew.MethodSigned, fhew.MethodLMKCDEY, fhew.MethodGINX} {
		if strings.EqualFold(s, m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown method %q (want Signed, LMKCDEY or GINX)", s)
}

// WithMethod returns p with method m at its window (the set's own window,
// or LMKCDEYWindow for LMKCDEY on a set made for another method); ok is
// false when m does not apply (GINX needs a ternary or binary LWE secret).
func WithMethod(p fhew.Params, m fhew.Method) (q fhew.Params, ok bool, err error) {
	lit := p.Literal()
	if m == lit.Method {
		return p, true, nil
	}
	if m == fhew.MethodGINX && lit.LWESecret == fhew.SecretGaussian {
		return fhew.Params{}, false, nil
	}
	w := lit.Window
	if m == fhew.MethodLMKCDEY {
		w = LMKCDEYWindow
	}
	q, err = p.WithMethod(m, w)
	return q, err == nil, err
}

// Row is one (set, method, window) row of Table 3 to measure.
type Row struct {
	// Set is the base set's name, Params the set with the row's method.
	Set    string
	Params fhew.Params
}

// Plan returns the rows of Table 3 for every set with every method that
// applies to it (WithMethod), sets first, methods in the order given.
func Plan(sets []fhew.Params, methods []fhew.Method) ([]Row, error) {
	var rows []Row
	for _, p := range sets {
		for _, m := range methods {
			q, ok, err := WithMethod(p, m)
			if err != nil {
				return nil, fmt.Errorf("%s with %s: %w", p.Name(), m, err)
			}
			if ok {
				rows = append(rows, Row{Set: p.Name(), Params: q})
			}
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("no (set, method) pair to measure")
	}
	return rows, nil
}
