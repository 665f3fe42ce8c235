package tests

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/optimize"
	"github.com/hcc-fhe/hcc/runtime"
)

// TestCMuxEncrypted maps the mux-heavy circuits for a set with the
// shared-select CMux gadget (docs/fhew-cmux.md) and runs them encrypted,
// checking every output bit against the plaintext evaluator of the source
// circuit. The toy set always runs; the 128-bit set STD128_T_CMUX runs
// without -short (about 10 s: keys plus ~100 bootstraps and a few circuit
// bootstraps per circuit).
func TestCMuxEncrypted(t *testing.T) {
	sets := []string{"ToySignedCMux"}
	if !testing.Short() {
		sets = append(sets, "STD128_T_CMUX")
	}
	for _, set := range sets {
		t.Run(set, func(t *testing.T) {
			p, err := fhew.ParamsByName(set, true)
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasCMux() {
				t.Fatalf("%s has no CMux gadget", set)
			}
			sk, ev, enc := newFHEWKeys(t, p)
			tg := fhew.NewLUTTarget(p, fhew.DefaultLUTFailureLog2)
			for _, name := range []string{"cmp32", "argmax8"} {
				c, err := lang.CompileFile("testdata/muxheavy.hdl", lang.Options{Circuit: name})
				if err != nil {
					t.Fatal(err)
				}
				m, err := optimize.ForLUTs(tg, 6).Run(c)
				if err != nil {
					t.Fatal(err)
				}
				st := m.Stats()
				if st.Count[ir.OpSel] == 0 || st.Count[ir.OpCMux] == 0 {
					t.Fatalf("%s on %s: no SEL/CMUX in the mapping (%d / %d)", name, set, st.Count[ir.OpSel], st.Count[ir.OpCMux])
				}
				plain := fhew.NewLUTTarget(mustParams(t, "STD128_T"), fhew.DefaultLUTFailureLog2)
				base, err := optimize.ForLUTs(plain, 6).Run(c)
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
				for trial := 0; trial < 2; trial++ {
					bits := make([]bool, m.NumInputBits())
					for i := range bits {
						bits[i] = rng.IntN(2) == 1
					}
					if trial == 1 { // equal words / ties: the other branch of every select
						half := len(bits) / 2
						if name == "argmax8" {
							half = 32
						}
						copy(bits[half:], bits[:half])
					}
					outs, _, err := runtime.Run(context.Background(), m, fhew.NewBackendWithTarget(ev, tg),
						enc.EncryptBits(bits), runtime.Options{Threads: 2})
					if err != nil {
						t.Fatal(err)
					}
					got, err := sk.DecryptBits(outs)
					if err != nil {
						t.Fatal(err)
					}
					in := make([]uint64, len(bits))
					for i, b := range bits {
						if b {
							in[i] = 1
						}
					}
					want := c.EvalBits(in)
					for j := range want {
						if got[j] != (want[j]&1 == 1) {
							t.Fatalf("%s trial %d: output bit %d decrypts to %v, plaintext %d", name, trial, j, got[j], want[j]&1)
						}
					}
				}
			}
		})
	}
}

func mustParams(t *testing.T, name string) fhew.Params {
	t.Helper()
	p, err := fhew.ParamsByName(name, false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
