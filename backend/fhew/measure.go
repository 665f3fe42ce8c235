package fhew

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"
)

// Measurement tooling for the paper's Table 3 and Figure 2 on this machine
// (used by `hcc bench fhew`). Every function generates fresh keys from
// crypto/rand and runs single-threaded.

// Table3Row is one (parameter set, method) row of Table 3.
type Table3Row struct {
	// Set, Method and Window identify the row.
	Set    string
	Method Method
	Window int
	// NAND time over the timed gates, in milliseconds.
	NANDMeanMs, NANDMedianMs float64
	// Key sizes in MB (10^6 bytes): blind-rotation keys and the whole
	// evaluation key in memory, and the evaluation-key file.
	BRKeyMB, EvalKeyMB, FileMB float64
	// KeyGenSec is the evaluation-key generation time.
	KeyGenSec float64
	// Noise is the measured noise (MeasureNoise).
	Noise NoiseMeasurement
	// Automorphisms per bootstrap, measured and by Theorem 1/2.
	AutosMeasured, AutosTheorem float64
}

// MeasureTable3Row generates keys for p, times nand NAND gates (after one
// warm-up) and measures the noise over noiseSamples gates.
func MeasureTable3Row(p Params, nand, noiseSamples int) (Table3Row, error) {
	row := Table3Row{Set: p.lit.Name, Method: p.lit.Method, Window: p.window}
	sk, err := NewSecretKey(p)
	if err != nil {
		return row, err
	}
	start := time.Now()
	ek, err := GenEvaluationKey(sk)
	if err != nil {
		return row, err
	}
	row.KeyGenSec = time.Since(start).Seconds()
	br, total := ek.SizeBytes()
	row.BRKeyMB, row.EvalKeyMB = float64(br)/1e6, float64(total)/1e6
	data, err := ek.MarshalBinary()
	if err != nil {
		return row, err
	}
	row.FileMB = float64(len(data)) / 1e6
	ev, err := NewEvaluator(p, ek)
	if err != nil {
		return row, err
	}
	enc, err := NewEncryptor(sk)
	if err != nil {
		return row, err
	}
	sc := NewScratch(p)
	x, y, out := enc.EncryptNew(1), enc.EncryptNew(1), NewCiphertext(p)
	ev.NAND(x, y, out, sc) // warm-up
	times := make([]float64, nand)
	for i := range times {
		t0 := time.Now()
		ev.NAND(x, y, out, sc)
		times[i] = float64(time.Since(t0).Nanoseconds()) / 1e6
		if b, err := sk.Decrypt(out); err != nil || b != 0 {
			return row, fmt.Errorf("fhew: NAND(1,1) decrypted to %d (%v) at %s", b, err, p.lit.Name)
		}
	}
	a, n := sc.Automorphisms()
	row.AutosMeasured = float64(a) / float64(n)
	row.AutosTheorem = p.Noise().ExpectedAutomorphisms
	row.NANDMeanMs, row.NANDMedianMs = meanMedian(times)
	if noiseSamples > 0 {
		if row.Noise, err = MeasureNoise(sk, ev, noiseSamples); err != nil {
			return row, err
		}
	}
	return row, nil
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

// WriteTable3CSV writes rows as CSV with a header line.
func WriteTable3CSV(w io.Writer, rows []Table3Row) error {
	cw := csv.NewWriter(w)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	_ = cw.Write([]string{"set", "method", "w", "nand_mean_ms", "nand_median_ms", "br_key_mb", "eval_key_mb",
		"file_mb", "keygen_s", "noise_std", "gate_noise_std", "log2_failure", "autos", "autos_theorem"})
	for _, r := range rows {
		_ = cw.Write([]string{r.Set, r.Method.String(), strconv.Itoa(r.Window), f(r.NANDMeanMs), f(r.NANDMedianMs),
			f(r.BRKeyMB), f(r.EvalKeyMB), f(r.FileMB), f(r.KeyGenSec), strconv.FormatFloat(r.Noise.OutputStd, 'g', 4, 64),
			strconv.FormatFloat(r.Noise.GateStd, 'g', 4, 64), f(r.Noise.Log2Failure), f(r.AutosMeasured), f(r.AutosTheorem)})
	}
	cw.Flush()
	return cw.Error()
}

// Figure2Point is the NAND time of one (method, w).
type Figure2Point struct {
	// Method and Window identify the point.
	Method Method
	Window int
	// NANDMedianMs is the median NAND time in milliseconds.
	NANDMedianMs float64
	// Autos is the measured number of automorphisms per bootstrap.
	Autos float64
}

// MeasureFigure2 times nand NAND gates for LMKCDEY and Signed at every
// window in ws on base's parameters (Figure 2 of the seed paper).
func MeasureFigure2(base Params, ws []int, nand int) ([]Figure2Point, error) {
	var out []Figure2Point
	for _, m := range []Method{MethodLMKCDEY, MethodSigned} {
		for _, w := range ws {
			p, err := base.WithMethod(m, w)
			if err != nil {
				return out, err
			}
			row, err := MeasureTable3Row(p, nand, 0)
			if err != nil {
				return out, err
			}
			out = append(out, Figure2Point{Method: m, Window: w, NANDMedianMs: row.NANDMedianMs, Autos: row.AutosMeasured})
		}
	}
	return out, nil
}

// WriteFigure2CSV writes points as CSV: method, w, median NAND ms, autos.
func WriteFigure2CSV(w io.Writer, pts []Figure2Point) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"method", "w", "nand_median_ms", "autos"})
	for _, p := range pts {
		_ = cw.Write([]string{p.Method.String(), strconv.Itoa(p.Window),
			strconv.FormatFloat(p.NANDMedianMs, 'f', 3, 64), strconv.FormatFloat(p.Autos, 'f', 1, 64)})
	}
	cw.Flush()
	return cw.Error()
}
