package fhewbench

import (
	"crypto/rand"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
)

// Options configures a measurement.
type Options struct {
	// NAND is the number of timed NAND gates (after one warm-up gate per
	// goroutine).
	NAND int
	// NoiseSamples is the number of two-input gate sums whose noise is
	// measured (each takes two bootstraps); 0 skips the noise measurement.
	NoiseSamples int
	// Threads is the number of goroutines sharing one evaluator (each with
	// its own scratch); 0 means 1. With more than one, NAND times are
	// latencies under contention and Table3Row.NANDPerSec the throughput.
	Threads int
	// Progress, if not nil, is told after each gate how far the current
	// stage ("keygen", "nand", "noise", ...) is. It may be called from
	// several goroutines at once and must be cheap.
	Progress func(stage string, done, total int)
}

func (o Options) threads() int {
	if o.Threads < 1 {
		return 1
	}
	return o.Threads
}

func (o Options) progress(stage string, done, total int) {
	if o.Progress != nil {
		o.Progress(stage, done, total)
	}
}

// Table3Row is one (parameter set, method) row of Table 3.
type Table3Row struct {
	// Set, Method and Window identify the row (Set is the base set's name,
	// without WithMethod's suffix).
	Set    string
	Method fhew.Method
	Window int
	// Threads is the number of goroutines that timed NAND gates.
	Threads int
	// NAND time over the timed gates, in milliseconds.
	NANDMeanMs, NANDMedianMs float64
	// NANDPerSec is the NAND throughput over all goroutines.
	NANDPerSec float64
	// WrongNAND counts timed NAND gates that decrypted wrongly.
	WrongNAND int
	// Key sizes in MB (10^6 bytes): blind-rotation keys (RGSW and
	// automorphism keys) and the whole evaluation key in memory, and the
	// evaluation-key file (public uniform parts regenerated from a seed).
	BRKeyMB, EvalKeyMB, FileMB float64
	// KeyGenSec is the evaluation-key generation time.
	KeyGenSec float64
	// Noise is the measured noise (MeasureNoise).
	Noise fhew.NoiseMeasurement
	// Log2FailureLo and Log2FailureHi bound Noise.Log2Failure by the
	// sampling error of the measured standard deviation (95%, normal
	// approximation σ·(1 ± 1.96/√(2·samples))).
	Log2FailureLo, Log2FailureHi float64
	// Model predictions (fhew.Params.Noise, GateFailureLog2 for weights
	// 1, 1) in the units of Noise.
	ModelOutputStd, ModelGateStd, ModelLog2Failure float64
	// Automorphisms per bootstrap: measured (fresh random inputs, averaged
	// over the timed and the noise bootstraps), by Theorem 1/2, and the
	// exact expectation of the implemented loop (autosByAlgorithm).
	AutosMeasured, AutosTheorem, AutosAlgorithm float64
}

// baseName strips WithMethod's "/method/w" suffix.
func baseName(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			return name[:i]
		}
	}
	return name
}

// MeasureTable3Row generates keys for p, times nand NAND gates (after one
// warm-up) and measures the noise over noiseSamples gates, single-threaded.
func MeasureTable3Row(p fhew.Params, nand, noiseSamples int) (Table3Row, error) {
	return MeasureTable3(p, Options{NAND: nand, NoiseSamples: noiseSamples})
}

// measuredKeys is a fresh key set with its generation time.
type measuredKeys struct {
	sk  *fhew.SecretKey
	ek  *fhew.EvaluationKey
	ev  *fhew.Evaluator
	sec float64
}

func genMeasuredKeys(p fhew.Params) (measuredKeys, error) {
	sk, err := fhew.NewSecretKey(p)
	if err != nil {
		return measuredKeys{}, fmt.Errorf("fhewbench: secret key for %s: %w", p.Name(), err)
	}
	start := time.Now()
	ek, err := fhew.GenEvaluationKey(sk)
	if err != nil {
		return measuredKeys{}, fmt.Errorf("fhewbench: evaluation key for %s: %w", p.Name(), err)
	}
	sec := time.Since(start).Seconds()
	ev, err := fhew.NewEvaluator(p, ek)
	if err != nil {
		return measuredKeys{}, err
	}
	return measuredKeys{sk: sk, ek: ek, ev: ev, sec: sec}, nil
}

// MeasureTable3 measures one row of Table 3 for p with fresh keys.
func MeasureTable3(p fhew.Params, opt Options) (Table3Row, error) {
	row := Table3Row{Set: baseName(p.Name()), Method: p.Method(), Window: p.Window(), Threads: opt.threads()}
	opt.progress("keygen", 0, 1)
	k, err := genMeasuredKeys(p)
	if err != nil {
		return row, err
	}
	opt.progress("keygen", 1, 1)
	row.KeyGenSec = k.sec
	br, total := k.ek.SizeBytes()
	row.BRKeyMB, row.EvalKeyMB = float64(br)/1e6, float64(total)/1e6
	data, err := k.ek.MarshalBinary()
	if err != nil {
		return row, fmt.Errorf("fhewbench: marshal evaluation key of %s: %w", p.Name(), err)
	}
	row.FileMB = float64(len(data)) / 1e6
	data = nil

	times, autos, wall, wrong, err := timeNAND(k, opt)
	if err != nil {
		return row, err
	}
	row.NANDMeanMs, row.NANDMedianMs = meanMedian(times)
	row.WrongNAND = wrong
	row.NANDPerSec = float64(len(times)) / wall
	row.AutosMeasured = autos
	m := p.Noise()
	row.AutosTheorem = m.ExpectedAutomorphisms
	row.AutosAlgorithm = autosByAlgorithm(p)
	row.ModelOutputStd = math.Sqrt(m.Output)
	row.ModelGateStd = math.Sqrt(2*m.Output + m.KeySwitch + m.Rounding)
	row.ModelLog2Failure = p.GateFailureLog2([]int{1, 1})
	if opt.NoiseSamples > 0 {
		var ns fhew.NoiseSums
		if row.Noise, ns, err = measureNoise(k.sk, k.ev, opt.NoiseSamples, opt.threads(), opt.Progress); err != nil {
			return row, err
		}
		// Average the automorphism count over every bootstrap run.
		nb := float64(len(times)) + float64(ns.Bootstraps)
		row.AutosMeasured = (row.AutosMeasured*float64(len(times)) + float64(ns.Automorphisms)) / nb
		d := 1.96 / math.Sqrt(2*float64(opt.NoiseSamples))
		row.Log2FailureLo = p.FailureLog2AtStd(row.Noise.GateStd * (1 - d))
		row.Log2FailureHi = p.FailureLog2AtStd(row.Noise.GateStd * (1 + d))
	}
	return row, nil
}

// inputPool holds fresh encryptions of random bit pairs, so that timed
// gates see fresh random α (the automorphism count, and with it the time,
// depends on α) without timing the encryption.
type inputPool struct {
	x, y []*fhew.Ciphertext
	nand []int
}

// maxPool caps the pool: inputs are reused cyclically beyond it.
const maxPool = 256

func newInputPool(enc *fhew.Encryptor, size int) *inputPool {
	size = max(1, min(size, maxPool))
	pl := &inputPool{}
	for i := 0; i < size; i++ {
		var r [1]byte
		rand.Read(r[:])
		a, b := int(r[0]&1), int(r[0]>>1&1)
		pl.x = append(pl.x, enc.EncryptNew(a))
		pl.y = append(pl.y, enc.EncryptNew(b))
		pl.nand = append(pl.nand, 1-a&b)
	}
	return pl
}

// get returns the i-th input pair (cyclically) and their NAND.
func (pl *inputPool) get(i int) (x, y *fhew.Ciphertext, nand int) {
	i %= len(pl.x)
	return pl.x[i], pl.y[i], pl.nand[i]
}

// timeNAND times opt.NAND NAND gates on opt.Threads goroutines sharing
// k.ev, checking every result. It returns the per-gate times in ms, the
// automorphisms per bootstrap, the wall time in seconds and the number of
// wrong results (a high-failure set such as STD128_LMKCDEY_G fails about
// once in 2^15 gates: counted, not fatal).
func timeNAND(k measuredKeys, opt Options) (times []float64, autos, wall float64, wrong int, err error) {
	p := k.ev.Params()
	threads := opt.threads()
	times = make([]float64, opt.NAND)
	var (
		mu         sync.Mutex
		nAuto, nBS int
		done       int
	)
	var wg sync.WaitGroup
	start := time.Now()
	for t := 0; t < threads; t++ {
		enc, e := fhew.NewEncryptor(k.sk)
		if e != nil {
			return nil, 0, 0, 0, e
		}
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			sc := fhew.NewScratch(p)
			pool := newInputPool(enc, len(times)/threads+1)
			out := fhew.NewCiphertext(p)
			k.ev.NAND(pool.x[0], pool.y[0], out, sc) // warm-up
			a0, n0 := sc.Automorphisms()             // not counted
			for i, j := t, 0; i < len(times); i, j = i+threads, j+1 {
				x, y, want := pool.get(j)
				t0 := time.Now()
				k.ev.NAND(x, y, out, sc)
				times[i] = float64(time.Since(t0).Nanoseconds()) / 1e6
				b, e := k.sk.Decrypt(out)
				mu.Lock()
				if e != nil || b != want {
					wrong++
				}
				done++
				d := done
				mu.Unlock()
				opt.progress("nand", d, len(times))
			}
			a, n := sc.Automorphisms()
			mu.Lock()
			nAuto, nBS = nAuto+a-a0, nBS+n-n0
			mu.Unlock()
		}(t)
	}
	wg.Wait()
	wall = time.Since(start).Seconds()
	if nBS > 0 {
		autos = float64(nAuto) / float64(nBS)
	}
	return times, autos, wall, wrong, nil
}

// measureNoise is fhew.MeasureNoise split over threads goroutines, each
// summing its share of the samples; it also returns the raw sums (for the
// automorphism counts).
func measureNoise(sk *fhew.SecretKey, ev *fhew.Evaluator, count, threads int, progress func(string, int, int)) (fhew.NoiseMeasurement, fhew.NoiseSums, error) {
	var total fhew.NoiseSums
	if count < 1 {
		return fhew.NoiseMeasurement{}, total, fmt.Errorf("fhewbench: need at least one noise sample, got %d", count)
	}
	var (
		mu       sync.Mutex
		done     int
		firstErr error
		wg       sync.WaitGroup
	)
	tick := func() {
		mu.Lock()
		done++
		d := done
		mu.Unlock()
		if progress != nil {
			progress("noise", d, count)
		}
	}
	for t := 0; t < threads; t++ {
		c := count / threads
		if t < count%threads {
			c++
		}
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			ns, err := fhew.SumNoise(sk, ev, c, tick)
			mu.Lock()
			defer mu.Unlock()
			total.Add(ns)
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}(c)
	}
	wg.Wait()
	if firstErr != nil {
		return fhew.NoiseMeasurement{}, total, firstErr
	}
	return total.Measurement(ev.Params()), total, nil
}

func meanMedian(xs []float64) (mean, median float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	for _, x := range s {
		mean += x
	}
	mean /= float64(len(s))
	median = s[len(s)/2]
	if len(s)%2 == 0 {
		median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return mean, median
}

// Table3CSVHeader is the header line WriteTable3CSV writes.
var Table3CSVHeader = []string{"set", "method", "w", "threads", "nand_mean_ms", "nand_median_ms", "nand_per_s",
	"br_key_mb", "eval_key_mb", "file_mb", "keygen_s", "noise_samples", "output_std", "model_output_std",
	"gate_std", "model_gate_std", "log2_failure", "log2_failure_lo", "log2_failure_hi", "model_log2_failure",
	"autos", "autos_theorem", "autos_algorithm", "wrong_nand"}

// WriteTable3CSV writes rows as CSV with a header line (Table3CSVHeader).
// Noise standard deviations are fractions of the circle (the modulus).
func WriteTable3CSV(w io.Writer, rows []Table3Row) error {
	cw := csv.NewWriter(w)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	if err := cw.Write(Table3CSVHeader); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Set, r.Method.String(), strconv.Itoa(r.Window), strconv.Itoa(r.Threads),
			f(r.NANDMeanMs), f(r.NANDMedianMs), f(r.NANDPerSec),
			f(r.BRKeyMB), f(r.EvalKeyMB), f(r.FileMB), f(r.KeyGenSec), strconv.Itoa(r.Noise.Samples),
			g(r.Noise.OutputStd), g(r.ModelOutputStd), g(r.Noise.GateStd), g(r.ModelGateStd),
			f(r.Noise.Log2Failure), f(r.Log2FailureLo), f(r.Log2FailureHi), f(r.ModelLog2Failure),
			f(r.AutosMeasured), f(r.AutosTheorem), f(r.AutosAlgorithm), strconv.Itoa(r.WrongNAND)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// autosByAlgorithm returns the expected number of automorphisms per blind
// rotation of the loops in fhew's blindrot.go for uniformly random odd α: a
// dynamic programme over the window counter v, treating the index buckets
// as independently empty with probability (1 - k/(M/2))^n (k = 2 for
// Signed's ±g^ℓ pairs, 1 for each of LMKCDEY's halves). Theorems 1 and 2
// approximate the same count in closed form by charging each empty bucket
// 1/w automorphisms independently, which overestimates it (e.g. 364 vs 347
// for Signed and 502 vs 446 for LMKCDEY at n = 581, M = 2048, w = 10); this
// is the prediction a measured average should match.
func autosByAlgorithm(p fhew.Params) float64 {
	M, n, w := p.BlindRotationModulus(), p.LWEDim(), p.Window()
	q4 := M / 4
	var pe float64
	var halves int
	switch p.Method() {
	case fhew.MethodSigned:
		pe, halves = math.Pow(1-2/float64(M/2), float64(n)), 1
	case fhew.MethodLMKCDEY:
		pe, halves = math.Pow(1-1/float64(M/2), float64(n)), 2
	default:
		return 0
	}
	dist := make([]float64, w+1) // dist[v] = P(window counter is v)
	next := make([]float64, w+1)
	dist[0] = 1
	e := float64(halves - 1) // LMKCDEY's Auto_{-g} between the halves
	for h := 0; h < halves; h++ {
		for ell := q4 - 1; ell > 0; ell-- {
			clear(next)
			for v, pv := range dist[:w] {
				if v+1 == w || ell == 1 {
					e += pv
					next[0] += pv
					continue
				}
				e += pv * (1 - pe)
				next[0] += pv * (1 - pe)
				next[v+1] += pv * pe
			}
			dist, next = next, dist
		}
	}
	return e
}
