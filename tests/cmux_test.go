package tests

import (
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/optimize"
)

// TestCMuxEncrypted maps the mux-heavy circuits for a set with the
// shared-select CMux gadget (docs/fhew-cmux.md) and runs them encrypted,
// checking every output against the plaintext evaluator of the source
// circuit. The toy set always runs; the 128-bit set STD128_T_CMUX runs
// without -short (about 10 s: keys plus ~100 bootstraps and a few circuit
// bootstraps per circuit).
func TestCMuxEncrypted(t *testing.T) {
	sets := []string{"ToySignedCMux"}
	if !testing.Short() {
		sets = append(sets, "STD128_T_CMUX")
	}
	plainSet, err := fhew.ParamsByName("STD128_T", false)
	if err != nil {
		t.Fatal(err)
	}
	plain := fhew.NewLUTTarget(plainSet, fhew.DefaultLUTFailureLog2)
	for _, set := range sets {
		t.Run(set, func(t *testing.T) {
			k := kitFor(t, set)
			if !k.p.HasCMux() {
				t.Fatalf("%s has no CMux gadget", set)
			}
			tg := k.be.LUTTarget()
			for _, name := range []string{"cmp32", "argmax8"} {
				c, err := lang.CompileFile("testdata/muxheavy.hdl", lang.Options{Circuit: name})
				if err != nil {
					t.Fatal(err)
				}
				m := compileFHEW(t, c, k)
				st := m.Stats()
				if st.Count[ir.OpSel] == 0 || st.Count[ir.OpCMux] == 0 {
					t.Fatalf("%s on %s: no SEL/CMUX in the mapping (%d / %d)", name, set, st.Count[ir.OpSel], st.Count[ir.OpCMux])
				}
				base, err := optimize.ForLUTs(plain, 4).Run(c)
				if err != nil {
					t.Fatal(err)
				}
				if got, was := tg.CircuitBootstraps(m), plain.CircuitBootstraps(base); got >= was {
					t.Errorf("%s: %d bootstraps with CMuxes, %d without", name, got, was)
				} else {
					t.Logf("%s on %s: %d bootstraps (%d SEL at %d each, %d CMUX), %d without the gadget",
						name, set, got, st.Count[ir.OpSel], tg.SelectBootstraps(), st.Count[ir.OpCMux], was)
				}
				rng := rand.New(rand.NewPCG(91, uint64(len(name))))
				in := randomInputs(c, rng)
				runEncrypted(t, c, m, k, in, 2)
				// Equal words (cmp32) and ties (argmax8): the other branch of every select.
				if name == "cmp32" {
					in["b"] = in["a"]
				} else {
					for e := range in["v"] {
						in["v"][e] = in["v"][0]
					}
				}
				runEncrypted(t, c, m, k, in, 2)
			}
		})
	}
}
