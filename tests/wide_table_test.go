package tests

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/circuits/aes"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
	"github.com/hcc-fhe/hcc/stdlib"
)

// Wide tables (optimize.MapWide: free linear layers + circuit-bootstrapped
// tables of up to 8 inputs, ir.WidePlan) against today's FHEW LUT mapping.
// docs/fhew-widemap.md has the table TestWideTable prints.

// widePlanMatches fails t unless plan computes c's function: every input
// up to 16 bits, edge cases and random vectors beyond.
func widePlanMatches(t testing.TB, c *ir.Circuit, p *ir.WidePlan) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(c.NumInputBits()), 5))
	for _, in := range circuittest.Vectors(rng, c.NumInputBits(), 8) {
		want := c.EvalBits(in)
		got, err := p.EvalBits(in)
		if err != nil {
			t.Fatal(err)
		}
		for o := range want {
			if want[o] != got[o] {
				t.Fatalf("%s: plan differs from the circuit at output bit %d", c.Name, o)
			}
		}
	}
}

// TestWideSBox: one S-box whose inputs are XORs of three circuit inputs is
// one table of 8 CBS and 8 outputs whose inputs are the S-box's input forms
// (3 terms each), not its top layer's sums.
func TestWideSBox(t *testing.T) {
	b := ir.NewBuilder("sbox")
	x := b.Input("x", 16, false)
	in := make([]ir.NodeID, 8)
	for i := range in {
		in[i] = b.Xor(b.Xor(x[i], x[(i+3)%16]), x[8+i])
	}
	b.Output("y", 8, false, stdlib.SBox(b, in))
	c := b.Circuit()
	p, err := optimize.MapWide(c, optimize.WideOptions{})
	if err != nil {
		t.Fatal(err)
	}
	widePlanMatches(t, c, p)
	if s := p.Stats(); s.Tables != 1 || s.CBS != 8 || s.TableOuts != 8 || s.MaxInTerms != 3 || s.MaxOutTerm != 1 {
		t.Fatalf("S-box: %v, want one 8 -> 8 table on 3-term forms", s)
	}
}

// TestWideAES maps aes128.hdl (Boyar-Peralta S-boxes; MixColumns and the
// key schedule linear): one 8-input, 8-output table per S-box, the
// S-box's bottom linear layer absorbed, and the FIPS-197 vector through
// the plan's plaintext evaluator. At MaxTerms = 12 refreshes keep every
// CBS input within 12 terms, a bounded number of them.
func TestWideAES(t *testing.T) {
	c, err := aes.Compile(aes.Small)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		maxTerms     int
		maxRefreshes int
	}{{1 << 20, 0}, {12, 250}} {
		t0 := time.Now()
		p, err := optimize.MapWide(c, optimize.WideOptions{MaxTerms: tc.maxTerms})
		el := time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		s := p.Stats()
		t.Logf("MaxTerms %d: %v (mapping %.2f s)", tc.maxTerms, s, el.Seconds())
		out, err := p.EvalValues(aes.Inputs(block(t, fips197[0]), block(t, fips197[1])))
		if err != nil {
			t.Fatal(err)
		}
		ct, err := aes.Ciphertext(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", ct); got != fips197[2] {
			t.Fatalf("MaxTerms %d: plan gives %s, FIPS-197 %s", tc.maxTerms, got, fips197[2])
		}
		widePlanMatches(t, c, p)
		sboxes := s.Tables - s.Refreshes
		if sboxes != 200 || s.CBS-s.Refreshes != 1600 || s.TableOuts-s.Refreshes != 1600 || s.MaxK != 8 {
			t.Errorf("MaxTerms %d: %d non-refresh tables, %d CBS, %d outputs (want 200 S-boxes of 8 -> 8)", tc.maxTerms, sboxes, s.CBS-s.Refreshes, s.TableOuts-s.Refreshes)
		}
		if s.Refreshes > tc.maxRefreshes || s.MaxInTerms > tc.maxTerms {
			t.Errorf("MaxTerms %d: %d refreshes (at most %d expected), max in-terms %d", tc.maxTerms, s.Refreshes, tc.maxRefreshes, s.MaxInTerms)
		}
	}
}
