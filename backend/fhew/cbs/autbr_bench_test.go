package cbs

// STD128_CBS measurements of the automorphism blind-rotation prototype
// (autbr_proto_test.go) against the GINX blind rotation: correctness and
// noise (opt-in, HCC_CBS_128=1) and time (BenchmarkAutBR*). Commands and
// results: docs/fhew-cbs-autbr.md.

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// autSteps are the prototype's rotation moduli M = 2N/step.
var autSteps = []int{1, 2}

// autBench is the shared STD128_CBS fixture: the package's keys, the
// prototype's keys per rotation modulus (windows up to autBenchWMax, both
// automorphism gadgets) and a pool of blind-rotation inputs: GINX's nearest
// rounding and, per modulus, the prototype's rounding of the same
// key-switched samples.
type autBench struct {
	k        *testKeys
	ab       []*autBR  // per autSteps entry
	near     [][]int32 // GINX inputs (sc.alpha)
	odd      [][][]int32
	exact    [][]float64 // the key-switched a_i in units of 1/2N, unrounded
	fc       []int64     // f, centred
	genTime  time.Duration
	poolSize int
}

var (
	autBenchOnce sync.Once
	autBenchVal  *autBench
	autBenchErr  error
)

const autBenchWMax = 64

func getAutBench(tb testing.TB) *autBench {
	tb.Helper()
	k := keysFor(tb, STD128_CBS)
	autBenchOnce.Do(func() {
		b := &autBench{k: k, poolSize: 16}
		t0 := time.Now()
		for _, step := range autSteps {
			ab, err := newAutBR(k.sk, k.ev.f, step, autBenchWMax, k.p.lit.BR, autGadget3)
			if err != nil {
				autBenchErr = err
				return
			}
			b.ab = append(b.ab, ab)
		}
		b.genTime = time.Since(t0) / time.Duration(len(autSteps))
		b.fc = make([]int64, k.p.ringN)
		k.p.ring.Centered(k.ev.f, b.fc)
		sc := NewScratch(k.p)
		as := newAutScratch(k.p)
		w := NewWideBit(k.p)
		b.odd = make([][][]int32, len(autSteps))
		for i := 0; i < b.poolSize; i++ {
			if err := k.enc.Encrypt(i%2 == 1, w); err != nil {
				autBenchErr = err
				return
			}
			k.ev.toSmallLWE(w, sc)
			b.near = append(b.near, slices.Clone(sc.alpha))
			b.exact = append(b.exact, exactAlpha(k.p, sc))
			for si, step := range autSteps {
				if err := oddAlpha(k.p, sc, as, step); err != nil {
					autBenchErr = err
					return
				}
				b.odd[si] = append(b.odd[si], slices.Clone(as.alpha))
			}
		}
		autBenchVal = b
	})
	if autBenchErr != nil {
		tb.Fatal(autBenchErr)
	}
	return autBenchVal
}

// exactAlpha returns the key-switched a_i of sc (sc.ksAcc, mod Q_ks) in
// units of 1/2N, before rounding.
func exactAlpha(p Params, sc *Scratch) []float64 {
	n := p.lit.LWEDim
	shift := p.lit.LogQKS - (p.lit.LogN + 1)
	mask := uint64(p.qks - 1)
	out := make([]float64, n)
	for j := range out {
		out[j] = math.Ldexp(float64((sc.ksAcc[j/4]>>(16*uint(j%4)))&mask), -shift)
	}
	return out
}

// roundingCost returns, for inputs alphas rounded from exact, the measured
// variance of one coefficient's rounding error (units of 1/2N), and from
// it, with the set's model for everything else, the phase σ of a fresh
// bit, log2 of a fresh CBS's failure probability and the largest number of
// XORed terms at ≤ 2^-50 per CBS (Params.MaxTerms with that rounding).
func roundingCost(p Params, alphas [][]int32, exact [][]float64) (v, sigma, fail float64, maxTerms int) {
	M := float64(p.ringM)
	cnt := 0
	for i, a := range alphas {
		for j, x := range exact[i] {
			e := math.Mod(float64(a[j])-x+1.5*M, M) - M/2
			v += e * e
			cnt++
		}
	}
	v /= float64(cnt)
	nm := p.Noise()
	round := float64(p.lit.LWEDim)*ternaryVar*v + 1.0/12 // b: nearest
	phase := func(inVar float64) float64 { return p.PhaseVar(inVar) - nm.Round + round }
	failAt := func(inVar float64) float64 {
		return log2Erfc((float64(p.half) - 0.5) / (math.Sqrt(phase(inVar)) * math.Sqrt2))
	}
	sigma = math.Sqrt(phase(nm.Fresh))
	fail = failAt(nm.Fresh)
	for failAt(float64(maxTerms+1)*p.TableOutputVar(8)+nm.Fresh) <= -50 && maxTerms < 1<<12 {
		maxTerms++
	}
	return v, sigma, fail, maxTerms
}

// autWindows are the measured windows.
var autWindows = []int{4, 8, 16, 32, 64}

// TestAutBR128 (opt-in: HCC_CBS_128=1) checks the prototype at STD128_CBS
// on 16 fresh encryptions (both bits) and measures, on the same inputs,
// the accumulator noise of the GINX blind rotation and of Algorithm 2 for
// both rotation moduli and both automorphism gadgets (variance of
// decryption − X^{-φ}·f over every coefficient) against their models, the
// automorphism counts per window, the key sizes and the phase noise of
// each rounding:
//
//	HCC_CBS_128=1 go test ./backend/fhew/cbs -run AutBR128 -v
func TestAutBR128(t *testing.T) {
	if os.Getenv("HCC_CBS_128") != "1" {
		t.Skip("set HCC_CBS_128=1 to run the STD128_CBS automorphism blind-rotation check")
	}
	b := getAutBench(t)
	k := b.k
	p := k.p
	n := p.lit.LWEDim
	cnt := float64(b.poolSize)
	t.Logf("prototype key generation per modulus (signed brk + 2×%d automorphism keys): %v", autBenchWMax, b.genTime)
	sc := NewScratch(p)
	as := newAutScratch(p)
	const wNoise = 16
	// phaseVar returns the mean squared phase error (units of 1/2N) of
	// the inputs against the bits' nominal phases b·N.
	phaseVar := func(alphas [][]int32) float64 {
		v := 0.0
		for i, a := range alphas {
			e := float64(centreMod(phaseOf(k, a)-int64(i%2)*int64(p.ringN), int64(p.ringM)))
			v += e * e
		}
		return v / float64(len(alphas))
	}
	var ginxVar float64
	for i := range b.near {
		copy(sc.alpha, b.near[i])
		k.ev.blindRotate(sc)
		v, worst := accErrVar(k, b.fc, phaseOf(k, sc.alpha), sc.accB, sc.accA)
		if worst > 1<<36 {
			t.Fatalf("input %d: GINX error 2^%.1f", i, math.Log2(worst))
		}
		ginxVar += v
	}
	ginxVar /= cnt
	logRounding := func(name string, alphas [][]int32) {
		v, sigma, fail, mt := roundingCost(p, alphas, b.exact)
		t.Logf("rounding %s: per-coefficient error variance %.3f (units of 1/2N; %d samples) -> fresh phase σ %.1f (model otherwise), fresh CBS failure 2^%.0f, MaxTerms(-50) %d",
			name, v, len(alphas)*n, sigma, fail, mt)
	}
	logRounding("nearest (GINX)", b.near)
	t.Logf("  (the set's model: phase σ %.1f, fresh CBS failure 2^%.0f, MaxTerms(-50) %d)",
		math.Sqrt(p.PhaseVar(p.Noise().Fresh)), p.CBSFailureLog2(p.Noise().Fresh), p.MaxTerms(-50))
	t.Logf("GINX accumulator: measured σ = 2^%.2f, model 2^%.2f (var ratio %.2f); phase σ at the input %.1f (units of 1/2N; %d ciphertexts)",
		math.Log2(ginxVar)/2, math.Log2(p.Noise().BR)/2, ginxVar/p.Noise().BR, math.Sqrt(phaseVar(b.near)), len(b.near))
	for si, ab := range b.ab {
		for vi := range ab.vars {
			av, autos := 0.0, 0
			for i, alpha := range b.odd[si] {
				copy(as.alpha, alpha)
				ab.blindRotate(as, vi, wNoise)
				v, worst := accErrVar(k, b.fc, phaseOf(k, as.alpha), as.accB, as.accA)
				if worst > 1<<36 {
					t.Fatalf("step %d, input %d, gadget %v: automorphism BR error 2^%.1f", ab.step, i, ab.vars[vi].g, math.Log2(worst))
				}
				if as.prods != n || as.autos != ab.autCount(as.alpha, wNoise) {
					t.Fatalf("step %d, input %d: %d products, %d automorphisms (schedule %d)", ab.step, i, as.prods, as.autos, ab.autCount(as.alpha, wNoise))
				}
				av += v
				autos += as.autos
			}
			av /= cnt
			model := ab.autModelVar(vi, n, autos/b.poolSize)
			t.Logf("M = 2N/%d, automorphism gadget %v, w = %d (%.1f automorphisms): measured σ = 2^%.2f, model 2^%.2f (ratio %.2f); var / GINX's = %.2f",
				ab.step, ab.vars[vi].g, wNoise, float64(autos)/cnt, math.Log2(av)/2, math.Log2(model)/2, av/model, av/ginxVar)
		}
		t.Logf("M = 2N/%d: phase σ at the input %.1f (units of 1/2N; %d ciphertexts)", ab.step, math.Sqrt(phaseVar(b.odd[si])), len(b.odd[si]))
		logRounding(fmt.Sprintf("M = 2N/%d (a_i ≡ %d mod %d)", ab.step, ab.step, 2*ab.step), b.odd[si])
		L := float64(ab.L)
		for _, w := range autWindows {
			tot := 0
			for _, a := range b.odd[si] {
				tot += ab.autCount(a, w)
			}
			t.Logf("M = 2N/%d, w = %2d: %.1f automorphisms per BR (mean); non-empty levels L(1-(1-1/L)^n) = %.1f; Theorem 2 average L(1-(1-1/w)e^{-n/L}) = %.1f",
				ab.step, w, float64(tot)/cnt, L*(1-math.Pow(1-1/L, float64(n))), L*(1-(1-1/float64(w))*math.Exp(-float64(n)/L)))
		}
	}
	ginxBytes := len(k.ek.brk) * 2 * 4 * p.lit.BR.Digits * 2 * 4 * p.ringN
	t.Logf("key sizes: GINX brk %.1f MB (+ monomial table %.1f MB in the Evaluator)", float64(ginxBytes)/1e6, float64(p.ringM*2*4*p.ringN)/1e6)
	ab := b.ab[0]
	for vi := range ab.vars {
		for _, w := range []int{8, 16, 32} {
			brk, auto := ab.sizeBytes(vi, w)
			t.Logf("key sizes: signed brk %.1f MB + %d automorphism keys (%v) %.2f MB", float64(brk)/1e6, w, ab.vars[vi].g, float64(auto)/1e6)
		}
	}
}

// centreMod returns x mod m in [-m/2, m/2).
func centreMod(x, m int64) int64 {
	x %= m
	if x < 0 {
		x += m
	}
	if x >= m/2 {
		x -= m
	}
	return x
}

// BenchmarkAutBR times, round by round on the same inputs (a pool of 16
// key-switched encryptions), the GINX blind rotation (Evaluator.blindRotate,
// a batch of one) and Algorithm 2 for each rotation modulus, automorphism
// gadget and window, alternating which runs first, and reports both in ms
// per BR, their ratio and the automorphisms per BR:
//
//	go test ./backend/fhew/cbs -run '^$' -bench 'AutBR$' -benchtime 20x
func BenchmarkAutBR(b *testing.B) {
	fx := getAutBench(b)
	k := fx.k
	sc := NewScratch(k.p)
	as := newAutScratch(k.p)
	for si, ab := range fx.ab {
		for vi := range ab.vars {
			for _, w := range autWindows {
				g := ab.vars[vi].g
				name := fmt.Sprintf("M=2N÷%d/g=%d×2^%d/w=%d", ab.step, g.Digits, g.LogB, w)
				b.Run(name, func(b *testing.B) {
					var tg, ta time.Duration
					autos := 0
					ginx := func(i int) {
						copy(sc.alpha, fx.near[i%fx.poolSize])
						t0 := time.Now()
						k.ev.blindRotate(sc)
						tg += time.Since(t0)
					}
					aut := func(i int) {
						copy(as.alpha, fx.odd[si][i%fx.poolSize])
						t0 := time.Now()
						ab.blindRotate(as, vi, w)
						ta += time.Since(t0)
						autos += as.autos
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if i%2 == 0 {
							ginx(i)
							aut(i)
						} else {
							aut(i)
							ginx(i)
						}
					}
					N := float64(b.N)
					b.ReportMetric(float64(tg.Microseconds())/1e3/N, "ginx-ms")
					b.ReportMetric(float64(ta.Microseconds())/1e3/N, "aut-ms")
					b.ReportMetric(float64(ta)/float64(tg), "aut/ginx")
					b.ReportMetric(float64(autos)/N, "autos/BR")
				})
			}
		}
	}
}

// BenchmarkAutBRParts prices the pieces, interleaved in every round: a
// whole GINX blind rotation (reported per step), n signed external
// products with the keys streamed in order as in a blind rotation (and
// with one key kept hot in cache: the bound for a prefetching DotRows), and
// automorphisms with both gadgets (keys ψ_{5^u}, u cycling 1..16), K of
// them, K the mean count at w = 16 for M = 2N. The projection of Algorithm 2
// with K_M automorphisms (the mean for rotation modulus M) is n·ext +
// K_M·auto, reported over the GINX blind rotation:
//
//	go test ./backend/fhew/cbs -run '^$' -bench AutBRParts -benchtime 20x
func BenchmarkAutBRParts(b *testing.B) {
	fx := getAutBench(b)
	k, ab := fx.k, fx.ab[0]
	p := k.p
	n := p.lit.LWEDim
	sc := NewScratch(p)
	as := newAutScratch(p)
	kMean := make([]float64, len(fx.ab))
	for si, a := range fx.ab {
		for _, alpha := range fx.odd[si] {
			kMean[si] += float64(a.autCount(alpha, 16)) / float64(fx.poolSize)
		}
	}
	autos := int(math.Round(kMean[0]))
	var tg, te, th, tp, tn time.Duration
	ta := make([]time.Duration, len(ab.vars))
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(sc.alpha, fx.near[i%fx.poolSize])
		t0 := time.Now()
		k.ev.blindRotate(sc)
		tg += time.Since(t0)
		for _, a := range sc.alpha[:n] {
			if a != 0 {
				steps++
			}
		}
		copyPoly(sc.accB, as.accB)
		copyPoly(sc.accA, as.accA)
		t0 = time.Now()
		for j := 0; j < n; j++ {
			ab.extProd(as, ab.brk[j][j%2])
		}
		te += time.Since(t0)
		t0 = time.Now()
		for j := 0; j < n; j++ {
			ab.extProd(as, ab.brk[0][0])
		}
		th += time.Since(t0)
		// The automorphism's non-transform part: two NTT-domain permutations
		// and the addition of ψ(B); and one two-prime forward NTT, the unit
		// of the operation counts.
		t0 = time.Now()
		for j := 0; j < autos; j++ {
			u := j%16 + 1
			r := p.ring
			r.AutomorphismNTT(as.accB, ab.index[u-1], as.tB)
			r.AutomorphismNTT(as.accA, ab.index[u-1], as.tA)
			r.Add(as.accB, as.tB, as.accB)
		}
		tp += time.Since(t0)
		t0 = time.Now()
		for j := 0; j < autos; j++ {
			p.ring.Forward(as.dig[j%4], as.dig[j%4])
		}
		tn += time.Since(t0)
		for vi := range ab.vars {
			v := ab.vars[vi]
			t0 = time.Now()
			for j := 0; j < autos; j++ {
				u := j%16 + 1
				ab.automorphism(as, v.g, ab.index[u-1], v.keys[u-1])
			}
			ta[vi] += time.Since(t0)
		}
	}
	N := float64(b.N)
	us := func(d time.Duration, per float64) float64 { return float64(d.Nanoseconds()) / 1e3 / per }
	ginxStep := us(tg, float64(steps))
	ext := us(te, N*float64(n))
	b.ReportMetric(ginxStep, "ginx-step-µs")
	b.ReportMetric(ext, "ext-µs")
	b.ReportMetric(us(th, N*float64(n)), "ext-hot-µs")
	b.ReportMetric(us(tp, N*float64(autos)), "perm-µs")
	b.ReportMetric(us(tn, N*float64(autos)), "ntt-µs")
	for vi := range ab.vars {
		a := us(ta[vi], N*float64(autos))
		d := ab.vars[vi].g.Digits
		b.ReportMetric(a, fmt.Sprintf("auto%d-µs", d))
		for si, a2 := range fx.ab {
			b.ReportMetric((float64(n)*ext+kMean[si]*a)/(float64(steps)/N*ginxStep), fmt.Sprintf("proj-M=2N÷%d-g%d/ginx", a2.step, d))
		}
	}
}
