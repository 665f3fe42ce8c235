package fhewbench

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
)

// Figure 2 of the seed paper (NAND time against the window w for LMKCDEY
// and Signed) and head-to-head comparisons, timed interleaved (see the
// package comment).

// Figure2Point is the NAND time of one (set, method, w).
type Figure2Point struct {
	// Set, Method and Window identify the point (Set is the base set's name).
	Set    string
	Method fhew.Method
	Window int
	// NAND time over the timed gates in milliseconds.
	NANDMeanMs, NANDMedianMs float64
	// Autos is the measured number of automorphisms per bootstrap,
	// AutosTheorem the average by Theorem 1 (LMKCDEY) or 2 (Signed),
	// AutosAlgorithm the exact expectation of the implemented loop.
	Autos, AutosTheorem, AutosAlgorithm float64
	// KeyGenSec is the evaluation-key generation time.
	KeyGenSec float64
	// WrongNAND counts timed NAND gates that decrypted wrongly.
	WrongNAND int
}

// interleaveBlock is the number of gates per set and round.
const interleaveBlock = 5

// MeasureInterleaved generates fresh keys for every set in ps and times
// opt.NAND NAND gates on each, single-threaded, in rounds of block gates
// per set in turn (block <= 0 means 5). roundMedians[i][r] is set i's
// median time in round r (ms).
func MeasureInterleaved(ps []fhew.Params, opt Options, block int) (pts []Figure2Point, roundMedians [][]float64, err error) {
	if block <= 0 {
		block = interleaveBlock
	}
	if opt.NAND < 1 {
		return nil, nil, fmt.Errorf("fhewbench: need at least one timed gate, got %d", opt.NAND)
	}
	type kit struct {
		k          measuredKeys
		sc         *fhew.Scratch
		pool       *inputPool
		out        *fhew.Ciphertext
		times      []float64
		roundTimes []float64
		wrong      int
		autos0     int // automorphisms and bootstraps of the warm-up
		boots0     int
	}
	kits := make([]*kit, len(ps))
	for i, p := range ps {
		opt.progress("keygen", i, len(ps))
		k, err := genMeasuredKeys(p)
		if err != nil {
			return nil, nil, err
		}
		enc, err := fhew.NewEncryptor(k.sk)
		if err != nil {
			return nil, nil, err
		}
		kt := &kit{k: k, sc: fhew.NewScratch(p), pool: newInputPool(enc, opt.NAND), out: fhew.NewCiphertext(p)}
		k.ev.NAND(kt.pool.x[0], kt.pool.y[0], kt.out, kt.sc) // warm-up
		kt.autos0, kt.boots0 = kt.sc.Automorphisms()
		kits[i] = kt
	}
	opt.progress("keygen", len(ps), len(ps))
	roundMedians = make([][]float64, len(ps))
	total := opt.NAND * len(ps)
	for done := 0; done < opt.NAND; {
		n := min(block, opt.NAND-done)
		for i, kt := range kits {
			kt.roundTimes = kt.roundTimes[:0]
			for j := 0; j < n; j++ {
				x, y, want := kt.pool.get(done + j)
				t0 := time.Now()
				kt.k.ev.NAND(x, y, kt.out, kt.sc)
				ms := float64(time.Since(t0).Nanoseconds()) / 1e6
				if b, err := kt.k.sk.Decrypt(kt.out); err != nil || b != want {
					kt.wrong++ // counted, not fatal (see timeNAND)
				}
				kt.times = append(kt.times, ms)
				kt.roundTimes = append(kt.roundTimes, ms)
			}
			_, med := meanMedian(kt.roundTimes)
			roundMedians[i] = append(roundMedians[i], med)
			opt.progress("nand", done*len(ps)+(i+1)*n, total)
		}
		done += n
	}
	for i, kt := range kits {
		p := ps[i]
		a, nb := kt.sc.Automorphisms()
		a, nb = a-kt.autos0, nb-kt.boots0
		pt := Figure2Point{Set: baseName(p.Name()), Method: p.Method(), Window: p.Window(),
			Autos: float64(a) / float64(nb), AutosTheorem: p.Noise().ExpectedAutomorphisms, AutosAlgorithm: autosByAlgorithm(p), KeyGenSec: kt.k.sec,
			WrongNAND: kt.wrong}
		pt.NANDMeanMs, pt.NANDMedianMs = meanMedian(kt.times)
		pts = append(pts, pt)
	}
	return pts, roundMedians, nil
}

// MeasureFigure2 times nand NAND gates for LMKCDEY and Signed at every
// window in ws on base's parameters (Figure 2 of the seed paper),
// single-threaded.
func MeasureFigure2(base fhew.Params, ws []int, nand int) ([]Figure2Point, error) {
	return MeasureFigure2With(base, ws, Options{NAND: nand})
}

// MeasureFigure2With is MeasureFigure2 with options (opt.NAND gates per
// point; NoiseSamples and Threads are ignored). At each w the two methods
// are timed interleaved. Points come LMKCDEY first, each method by
// increasing w as in ws.
func MeasureFigure2With(base fhew.Params, ws []int, opt Options) ([]Figure2Point, error) {
	var lmk, signed []Figure2Point
	for _, w := range ws {
		pl, err := base.WithMethod(fhew.MethodLMKCDEY, w)
		if err != nil {
			return nil, err
		}
		ps, err := base.WithMethod(fhew.MethodSigned, w)
		if err != nil {
			return nil, err
		}
		sub := opt
		if opt.Progress != nil {
			sub.Progress = func(stage string, done, total int) {
				opt.Progress(fmt.Sprintf("%s w=%d %s", baseName(base.Name()), w, stage), done, total)
			}
		}
		pts, _, err := MeasureInterleaved([]fhew.Params{pl, ps}, sub, 0)
		if err != nil {
			return nil, err
		}
		lmk, signed = append(lmk, pts[0]), append(signed, pts[1])
	}
	return append(lmk, signed...), nil
}

// Comparison is an interleaved head-to-head timing of two key sets.
type Comparison struct {
	// A and B are the two sets' points.
	A, B Figure2Point
	// Rounds is the number of interleaved rounds; AFaster counts those in
	// which A's median was below B's.
	Rounds, AFaster int
	// Ratio is the median over rounds of A's median / B's median: below 1
	// means A is faster.
	Ratio float64
	// Log2PValue is log2 of the two-sided sign-test p-value of AFaster out
	// of Rounds under "neither is faster": near 0 means the difference is
	// within the noise, below about -4.3 (p < 0.05) that it is not.
	Log2PValue float64
	// Kernel costs measured on A's keys (the same ring for both methods),
	// interleaved: one external product and one automorphism with key
	// switching, median microseconds. They explain the margin: both
	// methods run n external products and differ only in automorphisms.
	ExternalProductUs, AutomorphismUs float64
	// PredictedRatio is (n·ext + autos_A·auto) / (n·ext + autos_B·auto)
	// with the measured automorphism counts: the blind-rotation ratio the
	// kernel costs predict (key switching and extraction, the same for
	// both, push the NAND ratio closer to 1).
	PredictedRatio float64
}

// Compare times a against b interleaved (opt.NAND gates each, rounds of
// block gates, see MeasureInterleaved) and summarises the rounds.
func Compare(a, b fhew.Params, opt Options, block int) (Comparison, error) {
	pts, rounds, err := MeasureInterleaved([]fhew.Params{a, b}, opt, block)
	if err != nil {
		return Comparison{}, err
	}
	c := compareRounds(pts[0], pts[1], rounds[0], rounds[1])
	if a.Method() != fhew.MethodGINX { // the automorphism methods
		k, err := genMeasuredKeys(a)
		if err != nil {
			return c, err
		}
		c.ExternalProductUs, c.AutomorphismUs = measureKernels(k, max(opt.NAND, 50))
		n, e, au := float64(a.LWEDim()), c.ExternalProductUs, c.AutomorphismUs
		c.PredictedRatio = (n*e + c.A.Autos*au) / (n*e + c.B.Autos*au)
	}
	return c, nil
}

// measureKernels times reps external products and reps automorphisms (with
// key switching by ak_g) on k's keys, alternating
// (fhew.Evaluator.BlindRotationKernels), and returns the median
// microseconds of each.
func measureKernels(k measuredKeys, reps int) (extUs, autoUs float64) {
	ext1, auto1 := k.ev.BlindRotationKernels(fhew.NewScratch(k.ev.Params()))
	ext, auto := make([]float64, reps), make([]float64, reps)
	for r := 0; r < reps; r++ {
		t0 := time.Now()
		ext1()
		t1 := time.Now()
		auto1()
		t2 := time.Now()
		ext[r] = float64(t1.Sub(t0).Nanoseconds()) / 1e3
		auto[r] = float64(t2.Sub(t1).Nanoseconds()) / 1e3
	}
	_, extUs = meanMedian(ext)
	_, autoUs = meanMedian(auto)
	return extUs, autoUs
}

func compareRounds(a, b Figure2Point, ra, rb []float64) Comparison {
	c := Comparison{A: a, B: b, Rounds: len(ra)}
	ratios := make([]float64, len(ra))
	ties := 0
	for i := range ra {
		ratios[i] = ra[i] / rb[i]
		switch {
		case ra[i] < rb[i]:
			c.AFaster++
		case ra[i] == rb[i]:
			ties++
		}
	}
	_, c.Ratio = meanMedian(ratios)
	c.Log2PValue = signTestLog2P(c.AFaster, c.Rounds-ties)
	return c
}

// signTestLog2P returns log2 of the two-sided binomial(n, 1/2) p-value of
// k successes: 2·P(X <= min(k, n-k)), capped at 1.
func signTestLog2P(k, n int) float64 {
	if n == 0 {
		return 0
	}
	k = min(k, n-k)
	// log2 Σ_{i<=k} C(n, i) - n, summed in the log domain.
	terms := make([]float64, 0, k+1)
	for i := 0; i <= k; i++ {
		lg, _ := math.Lgamma(float64(n + 1))
		l1, _ := math.Lgamma(float64(i + 1))
		l2, _ := math.Lgamma(float64(n - i + 1))
		terms = append(terms, (lg-l1-l2)/math.Ln2-float64(n))
	}
	sort.Float64s(terms)
	top := terms[len(terms)-1]
	s := 0.0
	for _, t := range terms {
		s += math.Exp2(t - top)
	}
	return min(0, top+math.Log2(s)+1)
}

// WriteFigure2CSV writes points as CSV: set, method, w, mean and median
// NAND ms, measured and predicted automorphisms, key generation s.
func WriteFigure2CSV(w io.Writer, pts []Figure2Point) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"set", "method", "w", "nand_mean_ms", "nand_median_ms", "autos", "autos_theorem", "autos_algorithm", "keygen_s", "wrong_nand"}); err != nil {
		return err
	}
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	for _, p := range pts {
		if err := cw.Write([]string{p.Set, p.Method.String(), strconv.Itoa(p.Window), f(p.NANDMeanMs, 3),
			f(p.NANDMedianMs, 3), f(p.Autos, 1), f(p.AutosTheorem, 1), f(p.AutosAlgorithm, 1), f(p.KeyGenSec, 3), strconv.Itoa(p.WrongNAND)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CompareAtBest times Signed against LMKCDEY interleaved on base's
// parameters (Compare, opt.NAND gates each), each at the window with its
// lowest median in the sweep pts (from MeasureFigure2With).
func CompareAtBest(base fhew.Params, pts []Figure2Point, opt Options) (Comparison, error) {
	best := func(m fhew.Method) int {
		bw, bt := 0, 0.0
		for _, pt := range pts {
			if pt.Method == m && (bw == 0 || pt.NANDMedianMs < bt) {
				bw, bt = pt.Window, pt.NANDMedianMs
			}
		}
		return bw
	}
	ps, err := base.WithMethod(fhew.MethodSigned, best(fhew.MethodSigned))
	if err != nil {
		return Comparison{}, err
	}
	pl, err := base.WithMethod(fhew.MethodLMKCDEY, best(fhew.MethodLMKCDEY))
	if err != nil {
		return Comparison{}, err
	}
	return Compare(ps, pl, opt, 0)
}

// WriteCompareCSV writes head-to-head comparisons as CSV with a header line.
func WriteCompareCSV(w io.Writer, cs []Comparison) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"set", "a_method", "a_w", "a_median_ms", "b_method", "b_w", "b_median_ms",
		"rounds", "a_faster_rounds", "ratio", "log2_p_value", "ext_product_us", "automorphism_us", "predicted_ratio"}); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	for _, c := range cs {
		if err := cw.Write([]string{c.A.Set, c.A.Method.String(), strconv.Itoa(c.A.Window), f(c.A.NANDMedianMs),
			c.B.Method.String(), strconv.Itoa(c.B.Window), f(c.B.NANDMedianMs), strconv.Itoa(c.Rounds),
			strconv.Itoa(c.AFaster), f(c.Ratio), f(c.Log2PValue), f(c.ExternalProductUs), f(c.AutomorphismUs), f(c.PredictedRatio)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
