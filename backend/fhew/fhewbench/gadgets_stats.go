package fhewbench

import (
	"math"
	"sort"
)

// The statistics of MeasureGadgets: per-round times are reduced to a
// median, and a gadget's price to the median of its per-round ratios to
// the reference NAND timed in the same round. A ratio per round cancels
// the load of that round (both ran within a few tens of milliseconds); the
// median then discards the rounds in which another process took the core
// during one of the two.

// Median returns the median of xs (the mean of the two middle values for
// an even count) without changing xs; NaN for an empty slice.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	h := len(s) / 2
	if len(s)%2 == 1 {
		return s[h]
	}
	return (s[h-1] + s[h]) / 2
}

// RoundRatios returns num[i]/den[i] for every round i; a round whose
// denominator is not positive (a clock that did not advance) is left out.
// num and den must have the same length.
func RoundRatios(num, den []float64) []float64 {
	out := make([]float64, 0, len(num))
	for i := range num {
		if i < len(den) && den[i] > 0 {
			out = append(out, num[i]/den[i])
		}
	}
	return out
}

// MedianRatio is the median of the per-round ratios num[i]/den[i] (NaN
// when no round has a positive denominator).
func MedianRatio(num, den []float64) float64 { return Median(RoundRatios(num, den)) }
