package bgv

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/runtime"
)

// wideXorCircuit has layers of width wires, each wire of the next layer
// the XOR of width products of the current one: AND-depth layers, but every
// product's operands are sums of width products that share noise, whose
// estimate grows by about log2(width) bits per layer beyond a product
// chain's.
func wideXorCircuit(t testing.TB, layers, width int) *ir.Circuit {
	b := ir.NewBuilder("widexor")
	w := b.Input("x", width, false)
	for l := 0; l < layers; l++ {
		next := make([]ir.NodeID, len(w))
		for i := range next {
			b.SetPos(fmt.Sprintf("widexor.hdl:%d:%d", l+1, i+1))
			acc := b.And(w[0], w[(i+1)%width])
			for j := 1; j < width; j++ {
				acc = b.Xor(acc, b.And(w[j], w[(i+j+1)%width]))
			}
			next[i] = acc
		}
		w = next
	}
	b.Output("y", len(w), false, w)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// simRun encrypts random inputs at level with k's (public-key) encryptor,
// simulates c on their states and runs it on one worker; it returns the
// simulated states, the output ciphertexts, the expected outputs and both
// errors.
func simRun(t *testing.T, k *testKit, c *ir.Circuit, level int, rng *rand.Rand) ([]NoiseState, []backend.Ciphertext, uint64Outputs, error, error) {
	t.Helper()
	l := k.enc.Slots()
	mask := uint64(1)<<uint(l) - 1
	in := make([]uint64, c.NumInputBits())
	cts := make([]backend.Ciphertext, len(in))
	states := make([]NoiseState, len(in))
	for i := range in {
		in[i] = rng.Uint64() & mask
		ct := k.encryptBits(t, in[i])
		if level < k.pr.MaxLevel() {
			if err := k.ev.SwitchToLevel(ct, level, k.sc); err != nil {
				t.Fatal(err)
			}
		}
		cts[i], states[i] = ct, ct.State()
	}
	sim, simErr := k.pr.Simulate(c, states)
	outs, _, runErr := runtime.Run(context.Background(), c, NewBackend(k.ev), cts, runtime.Options{Threads: 1})
	return sim, outs, c.EvalBits(in), simErr, runErr
}

type uint64Outputs = []uint64

// TestSimulateRefusesWideXor: a circuit within the AND-depth the chain
// supports (CheckDepth, 8 at ToyM257) whose XORs of products exhaust the noise budget
// is refused by CheckCircuit with the node and the primes needed, and a
// run on real ciphertexts fails at the node the simulation of those
// inputs names.
func TestSimulateRefusesWideXor(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	c := wideXorCircuit(t, 8, 32)
	if err := k.pr.CheckDepth(CircuitDepth(c)); err != nil {
		t.Fatalf("the AND-depth check should pass: %v", err)
	}
	err := k.pr.CheckCircuit(c)
	var ne *NoiseError
	if !errors.As(err, &ne) || !errors.Is(err, ErrDepth) || !errors.Is(err, ErrNoiseBudget) {
		t.Fatalf("CheckCircuit: %v", err)
	}
	if ne.Op != ir.OpAnd || ne.Needed <= k.pr.MaxLevel()+1 || ne.ShortBits() <= 0 ||
		!strings.Contains(err.Error(), "primes by the noise model") || !strings.Contains(err.Error(), ne.Pos) || ne.Pos == "" {
		t.Errorf("CheckCircuit: %v (%+v)", err, ne)
	}
	t.Log(err)
	// Needed primes (the chain extended by copies of its top prime) run
	// it, one fewer does not.
	for extra, ok := range map[int]bool{ne.Needed - len(k.pr.q): true, ne.Needed - len(k.pr.q) - 1: false} {
		ext := k.pr
		if extra > 0 {
			ext = k.pr.noiseOnly(extra)
		}
		if err := ext.CheckCircuit(c); (err == nil) != ok {
			t.Errorf("%d primes: %v", len(ext.q), err)
		}
	}
	if _, lerr := k.pr.LevelForCircuit(c); !errors.As(lerr, &ne) {
		t.Errorf("LevelForCircuit: %v", lerr)
	}
	_, _, _, simErr, runErr := simRun(t, k, c, k.pr.MaxLevel(), rand.New(rand.NewPCG(1, 2)))
	var ne2 *NoiseError
	var re *runtime.NodeError
	if !errors.As(simErr, &ne2) || !errors.As(runErr, &re) || !errors.Is(runErr, ErrNoiseBudget) {
		t.Fatalf("simulation %v, run %v", simErr, runErr)
	}
	if re.Node != ne2.Node {
		t.Errorf("run failed at node %d, the simulation of its inputs at node %d", re.Node, ne2.Node)
	}
	if !strings.HasSuffix(ne2.Error(), re.Err.Error()) {
		t.Errorf("run error %q, simulation %q", re.Err, ne2.Err)
	}
}

// randomGateCircuit is bgv's shape of circuittest.Random: every op (LUTs
// of 1-6 inputs, PARITY of 2-7, constants), fanins leaning to the last 8
// nodes, 12 outputs.
func randomGateCircuit(t testing.TB, rng *rand.Rand, nIn, nGates int) *ir.Circuit {
	return circuittest.Random(t, rng, circuittest.Config{Inputs: nIn, Gates: nGates, Outputs: 12, MaxParityInputs: 7, Window: 8})
}

// TestSimulateMatchesRun: on random circuits the simulation of the actual
// input ciphertexts' states gives every output ciphertext's level and
// noise estimate exactly (the same code): at ToyM257Deep, where they all
// run (inputs switched down to level 28, so that products are cheaper and
// the inputs carry a rounding term), and at ToyM257, where most are refused and the run fails at the
// node the simulation names.
func TestSimulateMatchesRun(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyM257DeepLiteral, ToyM257Literal} {
		k := newTestKit(t, lit)
		rng := rand.New(rand.NewPCG(3, 4))
		mask := uint64(1)<<uint(k.enc.Slots()) - 1
		ran, refused := 0, 0
		trials := 10
		if lit.Name == ToyM257DeepLiteral.Name {
			trials = 6 // products at its levels cost several times more
		}
		for trial := 0; trial < trials; trial++ {
			c := randomGateCircuit(t, rng, 8, 30+8*trial)
			sim, outs, want, simErr, runErr := simRun(t, k, c, min(k.pr.MaxLevel(), 28), rng)
			if simErr != nil {
				var ne *NoiseError
				var re *runtime.NodeError
				if !errors.As(simErr, &ne) {
					t.Fatalf("%s trial %d: simulation: %v", lit.Name, trial, simErr)
				}
				refused++
				// The executor checks products only: past a sum the
				// simulation refuses, the run goes on (and would decrypt
				// wrongly), perhaps to a product it refuses.
				product := strings.Contains(ne.Err.Error(), "bgv mul")
				if !errors.As(runErr, &re) && product {
					t.Errorf("%s trial %d: simulation refused node %d, run: %v", lit.Name, trial, ne.Node, runErr)
				} else if re != nil && (re.Node != ne.Node) == product {
					t.Errorf("%s trial %d: run failed at node %d, simulation at %d (%v)", lit.Name, trial, re.Node, ne.Node, ne)
				}
				continue
			}
			if runErr != nil {
				t.Fatalf("%s trial %d: run failed, simulation passed: %v", lit.Name, trial, runErr)
			}
			ran++
			for i, o := range outs {
				ct := o.(*Ciphertext)
				if ct.State() != sim[i] {
					t.Errorf("%s trial %d output %d: run level %d noise %+v, simulated level %d noise %+v",
						lit.Name, trial, i, ct.Level(), ct.Noise, sim[i].Level, sim[i].Noise)
				}
				if got := k.decryptBits(t, ct); got != want[i]&mask {
					t.Errorf("%s trial %d output %d: got %016b, want %016b", lit.Name, trial, i, got, want[i]&mask)
				}
			}
		}
		t.Logf("%s: %d circuits ran as simulated, %d refused", lit.Name, ran, refused)
		if lit.Name == ToyM257DeepLiteral.Name && ran < 5 || lit.Name == ToyM257Literal.Name && (ran < 1 || refused < 3) {
			t.Errorf("%s: %d ran, %d refused: the test compares too little", lit.Name, ran, refused)
		}
	}
}
