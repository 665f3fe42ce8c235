package ir

import (
	"errors"
	"fmt"
	"strings"
)

// MaxWideInputs is the largest number of inputs of a WideTable: vertical
// packing of 2^8 entries per output is what one circuit-bootstrapped
// CMux tree evaluates cheaply (the AES S-box is 8 -> 8).
const MaxWideInputs = 8

// maxWideBits bounds a plan's input and output bits so that a malformed plan
// (huge bus shapes) is refused instead of allocating without bound.
const maxWideBits = 1 << 26

// ErrInvalidPlan is wrapped by every error WidePlan.Verify returns.
var ErrInvalidPlan = errors.New("invalid wide plan")

// A WidePlan computes a circuit with free linear layers and wide lookup
// tables, the execution model of circuit bootstrapping plus vertical packing
// (backend/fhew/cbs): every signal is an encrypted bit; XORs of signals and
// constants are free (ciphertext additions); a table reads linear forms of
// earlier signals and defines new, fresh signals.
//
// Signals 0..NumInputs-1 are the circuit's input bits (bus order, least
// significant bit first, element-major: the layout of Circuit.PackInputs),
// then the outputs of each table in order (table 0's outputs first).
type WidePlan struct {
	// Name is the circuit's name (for messages only).
	Name string
	// Inputs are the circuit's input buses, names and shapes; Bits is unused (nil).
	Inputs []Bus
	// NumInputs is the total number of input bits, Σ Width·Elems over Inputs.
	NumInputs int
	// Tables are in topological order: a table's forms read only inputs and
	// outputs of earlier tables.
	Tables []WideTable
	// Outputs are the circuit's output buses, names and shapes; Bits is unused (nil).
	Outputs []Bus
	// OutForms has one linear form per output bit, in bus order.
	OutForms []LinearForm
}

// A LinearForm is the XOR of the signals in Terms (distinct ids, sorted
// ascending) and Const. An empty Terms is the constant Const.
type LinearForm struct {
	Terms []int32
	Const bool
}

// A WideTable reads k = len(In) linear forms (1 <= k <= MaxWideInputs) and
// defines len(Out) >= 1 new signals. Output t is the truth table Out[t]
// indexed by the input bits, bit j of the index = the value of In[j]; Out[t]
// holds 2^k bits packed in uint64 words, entry x in bit x%64 of word x/64
// (one word when k <= 6, and then the bits from 2^k up are zero).
type WideTable struct {
	In  []LinearForm
	Out [][]uint64
}

// WideStats summarises a plan's cost drivers.
type WideStats struct {
	Tables     int // number of tables
	CBS        int // Σ len(In): one circuit bootstrap per table input
	DistinctIn int // distinct table input forms (Terms only: RGSW(¬b) = G - RGSW(b)): CBS with a per-form cache
	TableOuts  int // Σ len(Out): one key switch / extraction each
	Refreshes  int // tables with one input and one output copying or negating it (noise refreshes)
	MaxK       int // largest table fan-in
	MaxInTerms int // most terms in a form a table reads (the noise limit of a CBS input)
	MaxOutTerm int // most terms in an output form (decryption's limit)
	Signals    int // NumSignals
}

// String renders the stats on one line.
func (s WideStats) String() string {
	return fmt.Sprintf("tables=%d cbs=%d distinct-in=%d table-outputs=%d refreshes=%d max-k=%d max-in-terms=%d max-out-terms=%d signals=%d",
		s.Tables, s.CBS, s.DistinctIn, s.TableOuts, s.Refreshes, s.MaxK, s.MaxInTerms, s.MaxOutTerm, s.Signals)
}

// TableWords is the number of uint64 words of one output of a k-input table.
func TableWords(k int) int {
	if k <= 6 {
		return 1
	}
	return 1 << (k - 6)
}

// NumSignals is the number of signals the plan defines: its inputs plus
// every table output. It does not verify the plan.
func (p *WidePlan) NumSignals() int {
	n := p.NumInputs
	for i := range p.Tables {
		n += len(p.Tables[i].Out)
	}
	return n
}

// SignalBase returns, for each table, the id of its first output signal
// (output t of table i is signal SignalBase()[i] + t).
func (p *WidePlan) SignalBase() []int {
	base := make([]int, len(p.Tables))
	n := p.NumInputs
	for i := range p.Tables {
		base[i] = n
		n += len(p.Tables[i].Out)
	}
	return base
}

// IsRefresh reports whether the table is a noise refresh: one input and one
// output that copies or negates it (a fresh signal of a linear form).
func (t *WideTable) IsRefresh() bool {
	return len(t.In) == 1 && len(t.Out) == 1 && len(t.Out[0]) == 1 && (t.Out[0][0] == 0b10 || t.Out[0][0] == 0b01)
}

// busBits is Σ Width·Elems over buses, or an error for a malformed shape.
func busBits(kind string, bs []Bus) (int, error) {
	total := 0
	names := map[string]bool{}
	for i := range bs {
		b := &bs[i]
		if b.Name == "" {
			return 0, fmt.Errorf("%s bus %d has no name", kind, i)
		}
		if names[b.Name] {
			return 0, fmt.Errorf("%s bus %q appears twice", kind, b.Name)
		}
		names[b.Name] = true
		if b.Width < 1 || b.Width > maxWideBits {
			return 0, fmt.Errorf("%s bus %q has width %d, want 1..%d", kind, b.Name, b.Width, maxWideBits)
		}
		n := b.Width
		for _, d := range b.Dims {
			if d < 1 || d > maxWideBits {
				return 0, fmt.Errorf("%s bus %q has dimension %d, want 1..%d", kind, b.Name, d, maxWideBits)
			}
			n *= d
			if n > maxWideBits {
				return 0, fmt.Errorf("%s bus %q has more than %d bits", kind, b.Name, maxWideBits)
			}
		}
		total += n
		if total > maxWideBits {
			return 0, fmt.Errorf("%s buses have more than %d bits", kind, maxWideBits)
		}
	}
	return total, nil
}

// checkForm checks that f's terms are sorted, distinct and below limit.
func checkForm(f *LinearForm, limit int) string {
	for j, t := range f.Terms {
		if t < 0 || int(t) >= limit {
			return fmt.Sprintf("term %d is signal %d, not one of the %d signals defined before it", j, t, limit)
		}
		if j > 0 && t <= f.Terms[j-1] {
			return fmt.Sprintf("terms not sorted and distinct at term %d (%d after %d)", j, t, f.Terms[j-1])
		}
	}
	return ""
}

// Verify checks every structural invariant of the plan: bus shapes that
// match NumInputs and len(OutForms), tables of 1..MaxWideInputs inputs and at
// least one output, truth tables of exactly 2^k bits, and forms whose terms
// are sorted, distinct and defined before they are read (which makes the plan
// acyclic). A table input must have at least one term (a constant input is a
// mapper bug: restrict the table instead). It never panics, whatever the plan.
func (p *WidePlan) Verify() error {
	if p == nil {
		return fmt.Errorf("%w: nil plan", ErrInvalidPlan)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidPlan, p.Name, fmt.Sprintf(format, args...))
	}
	nIn, err := busBits("input", p.Inputs)
	if err != nil {
		return fail("%v", err)
	}
	if nIn != p.NumInputs {
		return fail("input buses have %d bits, NumInputs is %d", nIn, p.NumInputs)
	}
	nOut, err := busBits("output", p.Outputs)
	if err != nil {
		return fail("%v", err)
	}
	if nOut != len(p.OutForms) {
		return fail("output buses have %d bits, OutForms has %d forms", nOut, len(p.OutForms))
	}
	signals := p.NumInputs
	for i := range p.Tables {
		t := &p.Tables[i]
		k := len(t.In)
		if k < 1 || k > MaxWideInputs {
			return fail("table %d has %d inputs, want 1..%d", i, k, MaxWideInputs)
		}
		if len(t.Out) == 0 {
			return fail("table %d has no outputs", i)
		}
		for j := range t.In {
			if len(t.In[j].Terms) == 0 {
				return fail("table %d input %d is a constant (no terms)", i, j)
			}
			if msg := checkForm(&t.In[j], signals); msg != "" {
				return fail("table %d input %d: %s", i, j, msg)
			}
		}
		words := TableWords(k)
		for o, tt := range t.Out {
			if len(tt) != words {
				return fail("table %d output %d has %d words, a %d-input table needs %d", i, o, len(tt), k, words)
			}
			if k < 6 && tt[0]>>(1<<k) != 0 {
				return fail("table %d output %d has bits beyond entry %d", i, o, 1<<k)
			}
		}
		signals += len(t.Out)
		if signals > maxWideBits {
			return fail("more than %d signals", maxWideBits)
		}
	}
	for o := range p.OutForms {
		if msg := checkForm(&p.OutForms[o], signals); msg != "" {
			return fail("output bit %d: %s", o, msg)
		}
	}
	return nil
}

// evalForm XORs the form's signals (64 lanes per word).
func evalForm(f *LinearForm, vals []uint64) uint64 {
	var v uint64
	if f.Const {
		v = ^uint64(0)
	}
	for _, t := range f.Terms {
		v ^= vals[t]
	}
	return v
}

// EvalBits evaluates the plan on 64 input vectors at once, in the layout of
// Circuit.EvalBits: one word per input bit, lane j in bit j; it returns one
// word per output bit. It verifies the plan first.
func (p *WidePlan) EvalBits(in []uint64) ([]uint64, error) {
	if err := p.Verify(); err != nil {
		return nil, err
	}
	if len(in) != p.NumInputs {
		return nil, fmt.Errorf("wide plan %q has %d input bits, got %d", p.Name, p.NumInputs, len(in))
	}
	vals := make([]uint64, p.NumSignals())
	copy(vals, in)
	next := p.NumInputs
	var x [MaxWideInputs]uint64
	idx := make([]uint16, 64)
	for i := range p.Tables {
		t := &p.Tables[i]
		for j := range t.In {
			x[j] = evalForm(&t.In[j], vals)
		}
		// Per-lane index: 64 lookups per output beat a 2^k-way mux tree for k = 8.
		for lane := range 64 {
			var v uint16
			for j := range t.In {
				v |= uint16(x[j]>>lane&1) << j
			}
			idx[lane] = v
		}
		for _, tt := range t.Out {
			var w uint64
			for lane, v := range idx {
				w |= (tt[v>>6] >> (v & 63) & 1) << lane
			}
			vals[next] = w
			next++
		}
	}
	out := make([]uint64, len(p.OutForms))
	for o := range p.OutForms {
		out[o] = evalForm(&p.OutForms[o], vals)
	}
	return out, nil
}

// Eval is the plaintext reference semantics of the plan (the encrypted
// executor must agree with it): inputs holds one bool per input bit in the
// layout of Circuit.PackInputs; the result holds one bool per output bit in
// bus order.
func (p *WidePlan) Eval(inputs []bool) ([]bool, error) {
	if p != nil && len(inputs) != p.NumInputs {
		return nil, fmt.Errorf("wide plan %q has %d input bits, got %d", p.Name, p.NumInputs, len(inputs))
	}
	var in []uint64
	if p != nil {
		in = make([]uint64, len(inputs))
		for i, b := range inputs {
			if b {
				in[i] = 1
			}
		}
	}
	w, err := p.EvalBits(in)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(w))
	for i := range w {
		out[i] = w[i]&1 != 0
	}
	return out, nil
}

// shell is a circuit with the plan's buses only, for PackInputs/UnpackOutputs
// (which count bits by len(Bits), so each bus gets placeholder bits).
func (p *WidePlan) shell() *Circuit {
	fill := func(bs []Bus) []Bus {
		out := make([]Bus, len(bs))
		for i, b := range bs {
			b.Bits = make([]NodeID, b.Width*b.Elems())
			out[i] = b
		}
		return out
	}
	return &Circuit{Name: p.Name, Inputs: fill(p.Inputs), Outputs: fill(p.Outputs)}
}

// EvalValues evaluates the plan on named inputs, as Circuit.Eval does.
func (p *WidePlan) EvalValues(in Values) (Values, error) {
	if err := p.Verify(); err != nil {
		return nil, err
	}
	sh := p.shell()
	bits, err := sh.PackInputs(in)
	if err != nil {
		return nil, err
	}
	out, err := p.Eval(bits)
	if err != nil {
		return nil, err
	}
	return sh.UnpackOutputs(out)
}

// Stats counts the plan's tables, circuit bootstraps, outputs and term
// maxima. It does not verify the plan (call Verify first for a trusted count).
func (p *WidePlan) Stats() WideStats {
	s := WideStats{Tables: len(p.Tables), Signals: p.NumSignals()}
	seen := map[string]bool{}
	var key []byte
	for i := range p.Tables {
		t := &p.Tables[i]
		s.CBS += len(t.In)
		s.TableOuts += len(t.Out)
		s.MaxK = max(s.MaxK, len(t.In))
		if t.IsRefresh() {
			s.Refreshes++
		}
		for j := range t.In {
			s.MaxInTerms = max(s.MaxInTerms, len(t.In[j].Terms))
			key = key[:0]
			for _, x := range t.In[j].Terms {
				key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
			}
			if !seen[string(key)] {
				seen[string(key)] = true
				s.DistinctIn++
			}
		}
	}
	for o := range p.OutForms {
		s.MaxOutTerm = max(s.MaxOutTerm, len(p.OutForms[o].Terms))
	}
	return s
}

// String renders a form as "s3^s7^1" ("0" or "1" for a constant).
func (f LinearForm) String() string {
	if len(f.Terms) == 0 {
		if f.Const {
			return "1"
		}
		return "0"
	}
	var sb strings.Builder
	for j, t := range f.Terms {
		if j > 0 {
			sb.WriteByte('^')
		}
		fmt.Fprintf(&sb, "s%d", t)
	}
	if f.Const {
		sb.WriteString("^1")
	}
	return sb.String()
}
