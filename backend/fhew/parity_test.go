package fhew

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// TestPlanDecisions checks every plan's arithmetic in plaintext: for each
// input x the shifted phase v + (d-1)/2, moved by any noise below the
// margin d/2 slots, must fall in a region whose pattern bit (negacyclically
// extended) is f(x). All 2- and 3-input tables at P = 4 and P = 8.
func TestPlanDecisions(t *testing.T) {
	for _, P := range []int{4, 8} {
		for k := 1; k <= 3; k++ {
			for table := uint64(0); table < 1<<(1<<k); table++ {
				pl := findPlan(P, table, k)
				if !pl.ok {
					continue
				}
				if d := marginFactor(P, pl.spec.Weights); d != pl.d && !(pl.d == 1 && d > 1) {
					t.Fatalf("P=%d table %#x: plan d = %d, weights %v give %d", P, table, pl.d, pl.spec.Weights, d)
				}
				h := func(r int) uint64 { // pattern bit of region r (mod P)
					r = ((r % P) + P) % P
					if r >= P/2 {
						return uint64(pl.spec.Pattern>>uint(r-P/2)&1) ^ 1
					}
					return uint64(pl.spec.Pattern >> uint(r) & 1)
				}
				for x := 0; x < 1<<k; x++ {
					v := 0
					for i, w := range pl.spec.Weights {
						v += w * (x >> i & 1)
					}
					// Phase in half slots: 2v + (d-1); noise up to d-ε half
					// slots each way; region r covers half slots [2r-1, 2r+1).
					for e := -(pl.d - 1); e <= pl.d-1; e++ {
						ph := 2*v + pl.d - 1 + e
						r := int(math.Floor(float64(ph+1) / 2))
						if got := h(r); got != table>>uint(x)&1 {
							t.Fatalf("P=%d table %#x plan %+v: x=%d noise %d half slots decides %d", P, table, pl.spec, x, e, got)
						}
					}
				}
			}
		}
	}
	// XOR at P = 4 is a parity: weights 2, 2 and the doubled margin.
	if pl := findPlan(4, 0b0110, 2); pl.d != 2 || pl.spec.Weights[0] != 2 || pl.spec.Weights[1] != 2 {
		t.Errorf("XOR plan %+v", pl)
	}
}

// TestParityFailureModel pins the parity model: it equals a sum with
// weights P/2 at margin 1/4, decreases in k, and XOR on STD128_LOWFAIL_T is
// now as safe as AND (both far below 2^-190).
func TestParityFailureModel(t *testing.T) {
	p, err := NewParams(STD128_LOWFAIL_T)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := p.ParityFailureLog2(5), p.SumFailureLog2([]int{2, 2, 2, 2, 2}); math.Abs(a-b) > 1e-9 {
		t.Errorf("parity 5 = 2^%.3f, sum of weights 2 = 2^%.3f", a, b)
	}
	prev := math.Inf(-1)
	for k := 2; k <= ir.MaxParityInputs; k++ {
		f := p.ParityFailureLog2(k)
		if f <= prev {
			t.Fatalf("failure not increasing in k at %d", k)
		}
		prev = f
	}
	xor := p.SumFailureLog2(gatePlan(p, gateXOR).spec.Weights)
	and := p.SumFailureLog2(gatePlan(p, gateAND).spec.Weights)
	if xor > -190 || and > -190 || xor > and {
		t.Errorf("XOR 2^%.1f, AND 2^%.1f", xor, and)
	}
	K := p.MaxParityInputs(DefaultLUTFailureLog2)
	if K < 16 || (K < ir.MaxParityInputs && p.ParityFailureLog2(K+1) <= DefaultLUTFailureLog2) || p.ParityFailureLog2(K) > DefaultLUTFailureLog2 {
		t.Errorf("MaxParityInputs = %d (2^%.1f)", K, p.ParityFailureLog2(K))
	}
	t.Logf("STD128_LOWFAIL_T: XOR 2^%.1f, AND 2^%.1f, parity 16: 2^%.1f, 64: 2^%.1f, K = %d",
		xor, and, p.ParityFailureLog2(16), p.ParityFailureLog2(64), K)
	// The target's PARITY width follows the tighter parity bound by
	// default, and WithParityFailure overrides it either way.
	target := NewLUTTarget(p, DefaultLUTFailureLog2)
	if got, want := target.MaxParityInputs(), p.MaxParityInputs(DefaultParityFailureLog2); got != want || got >= K || got < 16 {
		t.Errorf("default target: K = %d, want %d (< %d at the LUT bound)", got, want, K)
	}
	if got := target.WithParityFailure(DefaultLUTFailureLog2).MaxParityInputs(); got != K {
		t.Errorf("WithParityFailure(%d): K = %d, want %d", DefaultLUTFailureLog2, got, K)
	}
	if got := NewLUTTarget(p, -100).MaxParityInputs(); got != p.MaxParityInputs(-100) {
		t.Errorf("NewLUTTarget(-100): K = %d, want %d (its own bound is the tighter)", got, p.MaxParityInputs(-100))
	}
	std, _ := NewParams(STD128_T)
	if k := std.MaxParityInputs(DefaultLUTFailureLog2); k < 6 || k > 8 {
		t.Errorf("STD128_T: MaxParityInputs = %d, want 6..8 (2^-41.5 at 7)", k)
	}
}

// parityTruth checks EvalParity, and the Backend's XOR, on random inputs.
func parityTruth(t *testing.T, lit ParamsLiteral, ks []int, trials int) {
	k := kitFor(t, lit)
	sc := NewScratch(k.p)
	rng := rand.New(rand.NewPCG(uint64(len(lit.Name)), 7))
	out := NewCiphertext(k.p)
	for _, n := range ks {
		for trial := 0; trial < trials; trial++ {
			in := make([]*Ciphertext, n)
			want := 0
			for i := range in {
				b := rng.IntN(2)
				want ^= b
				in[i] = k.enc.EncryptNew(b)
				if rng.IntN(2) == 0 { // a bootstrapped input, as in a circuit
					k.ev.Bootstrap(in[i], in[i], sc)
				}
			}
			if err := k.ev.EvalParity(in, out, sc); err != nil {
				t.Fatal(err)
			}
			got, err := k.sk.Decrypt(out)
			if err != nil || got != want {
				t.Fatalf("%s: parity of %d inputs = %d (%v), want %d", lit.Name, n, got, err, want)
			}
		}
	}
}

func TestEvalParityToy(t *testing.T) {
	parityTruth(t, ToySigned, []int{1, 2, 3, 4, 5, 9, 17, 33, 64}, 6)
	parityTruth(t, ToySlots8, []int{2, 3, 7, 40}, 4)
	// Every input combination for k = 2, 3 (through the Backend's worker:
	// PARITY nodes, and XOR on its wide-margin plan).
	k := kitFor(t, ToySigned)
	w := NewBackend(k.ev).NewWorker()
	out := w.NewCiphertext()
	for n := 2; n <= 3; n++ {
		for x := 0; x < 1<<n; x++ {
			in := make([]backend.Ciphertext, n)
			want := 0
			for i := range in {
				want ^= x >> i & 1
				in[i] = k.enc.EncryptNew(x >> i & 1)
			}
			ops := []ir.Op{ir.OpParity}
			if n == 2 {
				ops = append(ops, ir.OpXor, ir.OpXnor)
			}
			for _, op := range ops {
				nd := &ir.Node{Op: op, In: make([]ir.NodeID, n)}
				if err := w.Eval(nd, in, out); err != nil {
					t.Fatal(err)
				}
				got, err := k.sk.Decrypt(out.(*Ciphertext))
				if op == ir.OpXnor {
					got ^= 1
				}
				if err != nil || got != want {
					t.Fatalf("%v on %03b = %d (%v), want %d", op, x, got, err, want)
				}
			}
		}
	}
}

func TestEvalParity128(t *testing.T) {
	if testing.Short() {
		t.Skip("128-bit keys")
	}
	parityTruth(t, STD128_LOWFAIL_T, []int{2, 7, 33, 64}, 2)
}

// TestParityNoise measures the error a parity's blind rotation sees (key
// switched, rounded to M, shifted) on STD128_LOWFAIL_T against the model
// 4k·Output + KeySwitch + Rounding. The inputs come from a pool of
// bootstrapped ciphertexts whose own errors e_i are known (NoiseOf), so each
// sample splits into the input part Σ 2·e_i and the residual the key switch
// and rounding add: the pool's e_i check Output, the residuals check
// KeySwitch + Rounding, and the correlation of the two parts checks that
// they add (total² = input² + residual²).
//
// The bounds are statistical, not tuned: a check fails with probability at
// most parityNoiseTail on a correct implementation (all seven together
// below 1e-6). A sample standard deviation of n zero-mean Gaussian draws
// (the noise is Gaussian: kurtosis 3.0-3.2 measured over 600 bootstraps)
// has n·σ̂²/σ² ~ χ²_n (stdRatioBounds), widened by how far the model itself
// may be off, stated per quantity (modelBand). The correlation of the parts
// over n samples is N(0, 1/n) given the inputs, however often the pool's
// e_i are reused, so it holds for every k.
func TestParityNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("128-bit keys")
	}
	k := kitFor(t, STD128_LOWFAIL_T)
	p := k.p
	sc := NewScratch(p)
	rng := rand.New(rand.NewPCG(11, 12))
	const pool, samples = 192, 600
	// How far the model may be from the true standard deviation. Output
	// is an overestimate (key-switching digits that are zero add no noise,
	// which the model ignores): measured/model 0.82-0.92 in three runs of
	// 600 bootstraps. KeySwitch + Rounding is close: 0.95-1.02 in six runs
	// of 600 residuals.
	outBand := modelBand{0.78, 1.05}
	resBand := modelBand{0.92, 1.08}
	cts := make([]*Ciphertext, pool)
	bits := make([]int, pool)
	errs := make([]float64, pool)
	qks := float64(p.qks)
	var out2 float64
	for i := range cts {
		bits[i] = rng.IntN(2)
		cts[i] = NewCiphertext(p)
		k.ev.Bootstrap(k.enc.EncryptNew(bits[i]), cts[i], sc)
		errs[i] = float64(k.sk.NoiseOf(cts[i], bits[i])) / qks
		out2 += errs[i] * errs[i]
	}
	m := p.Noise()
	outStd, outModel := math.Sqrt(out2/pool), math.Sqrt(m.Output)
	lo, hi := outBand.bounds(pool)
	t.Logf("bootstrap output: measured std %.5f, model %.5f, ratio %.3f (allowed %.3f..%.3f)", outStd, outModel, outStd/outModel, lo, hi)
	if r := outStd / outModel; r < lo || r > hi {
		t.Errorf("output std %.5f vs model %.5f: ratio %.3f outside %.3f..%.3f", outStd, outModel, r, lo, hi)
	}
	M := p.M
	d := p.slots / 2
	zCorr := math.Sqrt2 * math.Erfcinv(parityNoiseTail)
	for _, n := range []int{4, 16, 64} {
		var tot2, res2, in2, cross float64
		for s := 0; s < samples; s++ {
			perm := rng.Perm(pool)[:n]
			in := make([]*Ciphertext, n)
			par, inErr := 0, 0.0
			for j, i := range perm {
				in[j] = cts[i]
				par ^= bits[i]
				inErr += 2 * errs[i]
			}
			combine(p.params, in, parityWeights[p.slots][:n], 0, sc)
			sc.comb[0] += uint16((d - 1) * p.qks / (2 * p.slots))
			beta := prepareBlindRotation(p.params, k.ev.ek.ksk, sc)
			phase := beta
			for j, a := range sc.alpha {
				phase += int(a) * int(k.sk.s[j])
			}
			want := par*M/2 + (d-1)*M/(2*p.slots)
			e := ((phase-want)%M + M) % M
			if e >= M/2 {
				e -= M
			}
			x := float64(e) / float64(M)
			tot2 += x * x
			res2 += (x - inErr) * (x - inErr)
			in2 += inErr * inErr
			cross += inErr * (x - inErr)
		}
		res, resModel := math.Sqrt(res2/samples), math.Sqrt(m.KeySwitch+m.Rounding)
		tot, totModel := math.Sqrt(tot2/samples), math.Sqrt(4*float64(n)*m.Output+m.KeySwitch+m.Rounding)
		corr := cross / math.Sqrt(in2*res2)
		lo, hi := resBand.bounds(samples)
		t.Logf("k=%d: residual std %.5f (model %.5f, ratio %.3f, allowed %.3f..%.3f); correlation with the input part %+.3f (allowed ±%.3f); total %.5f (model %.5f, ratio %.3f; margin 0.25)",
			n, res, resModel, res/resModel, lo, hi, corr, zCorr/math.Sqrt(samples), tot, totModel, tot/totModel)
		if r := res / resModel; r < lo || r > hi {
			t.Errorf("k=%d: residual std %.5f vs model %.5f: ratio %.3f outside %.3f..%.3f", n, res, resModel, r, lo, hi)
		}
		if math.Abs(corr)*math.Sqrt(samples) > zCorr {
			t.Errorf("k=%d: input part and residual correlate (%+.3f over %d samples): the parts do not add", n, corr, samples)
		}
	}
}

// parityNoiseTail is the failure probability allowed to each of
// TestParityNoise's seven two-sided checks on a correct implementation.
const parityNoiseTail = 1e-6 / 7

// modelBand is the range [lo, hi] in which the true standard deviation of a
// noise term lies relative to the model's.
type modelBand struct{ lo, hi float64 }

// bounds returns the range a measured/model ratio of standard deviations
// over n samples stays in with probability at least 1 - parityNoiseTail
// (the band times stdRatioBounds).
func (b modelBand) bounds(n int) (lo, hi float64) {
	slo, shi := stdRatioBounds(n, parityNoiseTail)
	return b.lo * slo, b.hi * shi
}

// stdRatioBounds returns lo, hi such that √(Σx²/n)/σ for n independent
// N(0, σ²) draws falls outside [lo, hi] with probability tail (half on each
// side): Σx²/σ² is χ²_n.
func stdRatioBounds(n int, tail float64) (lo, hi float64) {
	chi := distuv.ChiSquared{K: float64(n)}
	return math.Sqrt(chi.Quantile(tail/2) / float64(n)), math.Sqrt(chi.Quantile(1-tail/2) / float64(n))
}

// TestStdRatioBounds checks stdRatioBounds against simulation at a tail
// large enough to count, and its monotonicity in n.
func TestStdRatioBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, trials, tail = 50, 20000, 0.1
	lo, hi := stdRatioBounds(n, tail)
	out := 0
	for i := 0; i < trials; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			x := rng.NormFloat64()
			s += x * x
		}
		if r := math.Sqrt(s / n); r < lo || r > hi {
			out++
		}
	}
	// Binomial(20000, 0.1): mean 2000, sd 42.
	if out < 1750 || out > 2250 {
		t.Errorf("%d of %d outside [%.3f, %.3f], want about %d", out, trials, lo, hi, int(tail*trials))
	}
	lo2, hi2 := stdRatioBounds(4*n, tail)
	if !(lo < lo2 && lo2 < 1 && 1 < hi2 && hi2 < hi) {
		t.Errorf("bounds at n = %d [%.3f, %.3f] do not narrow to [%.3f, %.3f] at %d", n, lo, hi, lo2, hi2, 4*n)
	}
}

// TestParityAllocs: EvalParity and the worker's PARITY, XOR and LUT paths
// allocate nothing.
func TestParityAllocs(t *testing.T) {
	k := kitFor(t, ToySigned)
	sc := NewScratch(k.p)
	in := make([]*Ciphertext, 20)
	cts := make([]backend.Ciphertext, 20)
	for i := range in {
		in[i] = k.enc.EncryptNew(i & 1)
		cts[i] = in[i]
	}
	out := NewCiphertext(k.p)
	if a := testing.AllocsPerRun(5, func() { _ = k.ev.EvalParity(in, out, sc) }); a != 0 {
		t.Errorf("EvalParity allocates %v times", a)
	}
	w := NewBackend(k.ev).NewWorker()
	for _, nd := range []*ir.Node{
		{Op: ir.OpParity, In: make([]ir.NodeID, 20)},
		{Op: ir.OpXor, In: make([]ir.NodeID, 2)},
		{Op: ir.OpLUT, In: make([]ir.NodeID, 3), Table: 0b10010110},
	} {
		x := cts[:len(nd.In)]
		if a := testing.AllocsPerRun(5, func() { _ = w.Eval(nd, x, out) }); a != 0 {
			t.Errorf("worker %v allocates %v times", nd.Op, a)
		}
	}
}

// TestOneEvaluationPath: the Evaluator's gate methods, EvalLUT and the
// Backend's worker evaluate through the same plans, so the same input
// ciphertexts give bit-identical outputs (a bootstrap is deterministic),
// XOR and XNOR run with the shifted (2, 2) plan of margin 1/4 at P = 4, and
// every plan's margin factor is the one its weights imply (what
// SumFailureLog2 and GateFailureLog2 assume).
func TestOneEvaluationPath(t *testing.T) {
	k := kitFor(t, ToySigned)
	sc := NewScratch(k.p)
	w := NewBackend(k.ev).NewWorker()
	for _, g := range []int{gateXOR, gateXNOR} {
		if pl := k.ev.gates[g]; pl.d != 2 || pl.spec.Weights[0] != 2 || pl.spec.Weights[1] != 2 {
			t.Errorf("gate %d plan %+v, want weights 2, 2 with d = 2", g, pl)
		}
	}
	for _, P := range []int{4, 8} {
		for n := 1; n <= 3; n++ {
			for table := uint64(0); table < 1<<(1<<n); table++ {
				if pl := findPlan(P, table, n); pl.ok && pl.d != marginFactor(P, pl.spec.Weights) {
					t.Fatalf("P=%d table %#x: plan d = %d, its weights %v imply %d", P, table, pl.d, pl.spec.Weights, marginFactor(P, pl.spec.Weights))
				}
			}
		}
	}
	if a, b := k.p.GateFailureLog2([]int{2, 2}), k.p.SumFailureLog2([]int{2, 2}); a != b {
		t.Errorf("GateFailureLog2(2, 2) = 2^%.1f, SumFailureLog2 2^%.1f", a, b)
	}
	direct, viaWorker := NewCiphertext(k.p), NewCiphertext(k.p)
	same := func(name string) {
		t.Helper()
		if direct.B != viaWorker.B || !slices.Equal(direct.A, viaWorker.A) {
			t.Errorf("%s: Evaluator and worker outputs differ", name)
		}
	}
	ops := []struct {
		op ir.Op
		f  func(*Evaluator, *Ciphertext, *Ciphertext, *Ciphertext, *Scratch)
	}{
		{ir.OpAnd, (*Evaluator).AND}, {ir.OpNand, (*Evaluator).NAND}, {ir.OpOr, (*Evaluator).OR},
		{ir.OpNor, (*Evaluator).NOR}, {ir.OpXor, (*Evaluator).XOR}, {ir.OpXnor, (*Evaluator).XNOR},
		{ir.OpAndNY, (*Evaluator).ANDNY},
	}
	for trial := 0; trial < 4; trial++ {
		a, b, c := k.enc.EncryptNew(trial&1), k.enc.EncryptNew(trial>>1&1), k.enc.EncryptNew(1)
		for _, o := range ops {
			o.f(k.ev, a, b, direct, sc)
			if err := w.Eval(&ir.Node{Op: o.op, In: make([]ir.NodeID, 2)}, []backend.Ciphertext{a, b}, viaWorker); err != nil {
				t.Fatal(err)
			}
			same(o.op.String())
		}
		for _, table := range []uint64{0b10010110, 0b11101000, 0b01100110} {
			if err := k.ev.EvalLUT(table, []*Ciphertext{a, b, c}, direct, sc); err != nil {
				t.Fatal(err)
			}
			if err := w.Eval(&ir.Node{Op: ir.OpLUT, In: make([]ir.NodeID, 3), Table: table}, []backend.Ciphertext{a, b, c}, viaWorker); err != nil {
				t.Fatal(err)
			}
			same(fmt.Sprintf("LUT %#x", table))
		}
	}
}
