package fhewbench

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// slowMedian is the textbook definition: sort, take the middle element or
// the mean of the two middle ones.
func slowMedian(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[(n-1)/2]
	}
	return 0.5 * (s[n/2-1] + s[n/2])
}

func TestMedianAndRatios(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1}, 3},
		{[]float64{9, 1, 5}, 5},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7, 7, 1, 100, 7}, 7},
	} {
		in := append([]float64(nil), c.xs...)
		if got := Median(c.xs); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, c.want)
		}
		for i := range in {
			if in[i] != c.xs[i] {
				t.Fatalf("Median reordered its input: %v", c.xs)
			}
		}
	}
	if !math.IsNaN(Median(nil)) || !math.IsNaN(MedianRatio(nil, nil)) {
		t.Error("median of nothing is not NaN")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 40; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = rng.NormFloat64()
		}
		if got, want := Median(xs), slowMedian(xs); got != want {
			t.Fatalf("n=%d: Median %v, slow %v", n, got, want)
		}
	}
	// Per-round ratios, a zero denominator dropped: 2/1, 6/3, 1/4, (5/0).
	num, den := []float64{2, 6, 1, 5}, []float64{1, 3, 4, 0}
	if got := RoundRatios(num, den); len(got) != 3 || got[0] != 2 || got[1] != 2 || got[2] != 0.25 {
		t.Errorf("RoundRatios = %v", got)
	}
	if got := MedianRatio(num, den); got != 2 {
		t.Errorf("MedianRatio = %v, want 2", got)
	}
	// The median of per-round ratios is not the ratio of medians: a round
	// where both slowed down (load) keeps its ratio.
	num, den = []float64{1, 1, 10}, []float64{2, 2, 20}
	if got := MedianRatio(num, den); got != 0.5 {
		t.Errorf("MedianRatio under a loaded round = %v, want 0.5", got)
	}
}

// TestRunRoundsArithmetic runs fake gadgets on a fake clock: the reference
// bracketing the round (two gadgets, one row), a gadget of 10 ops per
// round, a shared row, a wrong result and a failing gadget.
func TestRunRoundsArithmetic(t *testing.T) {
	var now time.Time
	gadgetClock = func() time.Time { return now }
	defer func() { gadgetClock = time.Now }()
	step := func(ms func(i int) float64) func(int) error {
		return func(i int) error { now = now.Add(time.Duration(ms(i) * 1e6)); return nil }
	}
	ref := &GadgetRow{Gadget: "ref", OpsPerRound: 2}
	x := &GadgetRow{Gadget: "x", OpsPerRound: 10}
	// The reference takes 10 ms at the start and 14 at the end of round 0
	// (mean 12), 20 and 20 in round 1 (a loaded round), 11 and 13 in round 2.
	refMs := [][2]float64{{10, 14}, {20, 20}, {11, 13}}
	gs := []*gadget{
		{row: ref, run: step(func(i int) float64 { return refMs[i][0] })},
		{row: x, run: step(func(i int) float64 { return []float64{24, 60, 30}[i] }), // 10 ops: 2.4, 6, 3 ms each
			check: func(i int) (int, int, error) { return 10, boolInt(i == 1), nil }},
		{row: ref, run: step(func(i int) float64 { return refMs[i][1] })},
	}
	res := &GadgetResult{Rounds: 3}
	if err := runRounds(gs, GadgetOptions{Rounds: 3}, res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0].Gadget != "ref" || res.Rows[1].Gadget != "x" {
		t.Fatalf("rows %+v", res.Rows)
	}
	// ref per round (mean): 12, 20, 12 ms; x per op: 2.4, 6, 3 ms;
	// ratios 0.2, 0.3, 0.25.
	r, xr := res.Rows[0], res.Rows[1]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(r.MedianMs, 12) || !near(r.Ratio, 1) || !near(xr.MedianMs, 3) || !near(xr.Ratio, 0.25) {
		t.Errorf("ref median %v ratio %v; x median %v ratio %v (want 12, 1, 3, 0.25)", r.MedianMs, r.Ratio, xr.MedianMs, xr.Ratio)
	}
	if xr.Checked != 30 || xr.Wrong != 1 {
		t.Errorf("x checked %d wrong %d, want 30, 1", xr.Checked, xr.Wrong)
	}
	if res.Wrong() != 1 {
		t.Errorf("Wrong() = %d", res.Wrong())
	}
	boom := errors.New("boom")
	bad := []*gadget{{row: &GadgetRow{Gadget: "bad", Set: "S", OpsPerRound: 1}, run: func(int) error { return boom }}}
	if err := runRounds(bad, GadgetOptions{Rounds: 1}, &GadgetResult{}); !errors.Is(err, boom) || !strings.Contains(err.Error(), "bad at S") {
		t.Errorf("failing gadget: %v", err)
	}
}

// TestMeasureGadgetsToy measures every gadget on the toy sets (2 rounds;
// every result is decrypted and checked by MeasureGadgets itself).
func TestMeasureGadgetsToy(t *testing.T) {
	ref, err := fhew.NewParamsInsecure(fhew.ToySigned)
	if err != nil {
		t.Fatal(err)
	}
	gauss, err := fhew.NewParamsInsecure(fhew.ToyGaussian)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := cbs.NewParamsInsecure(cbs.ToyCBS)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := fhew.NewParamsInsecure(fhew.ToySignedCMux)
	if err != nil {
		t.Fatal(err)
	}
	var stages []string
	cpuCalls := 0
	res, err := MeasureGadgets(GadgetOptions{Rounds: 2, Reference: ref, NANDSets: []fhew.Params{ref, gauss}, CBS: &cp, CMux: &mp, MultiOutput: true,
		Progress: func(stage string, done, total int) {
			if done == total {
				stages = append(stages, stage)
			}
		},
		CPU: func() (time.Duration, bool) { cpuCalls++; return time.Duration(cpuCalls) * time.Second, true }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"reference " + GadgetNAND, GadgetNAND, GadgetNAND, GadgetCBS, GadgetTable, GadgetSelect, GadgetCMux, GadgetMultiOne, GadgetMultiOut}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		if r.Gadget != want[i] || len(r.TimesMs) != 2 || !(r.MedianMs > 0) || !(r.Ratio > 0) || math.IsInf(r.Ratio, 0) || r.Checked == 0 || r.Wrong != 0 {
			t.Errorf("row %d: %+v (want %s, 2 positive times, checked, none wrong)", i, r, want[i])
		}
	}
	if res.Rows[0].Ratio != 1 || res.Rows[2].Set != "ToyGaussian" || res.Rows[3].Set != "ToyCBS" || res.Rows[5].Set != "ToySignedCMux" {
		t.Errorf("rows: %+v", res.Rows)
	}
	if !res.CPUKnown || res.RoundsCPUSec != 1 || !(res.ReceivedCores() > 0) {
		t.Errorf("CPU: known %v, %v s, %v cores", res.CPUKnown, res.RoundsCPUSec, res.ReceivedCores())
	}
	if strings.Join(stages, ",") != "keygen ToySigned,keygen ToyGaussian,keygen ToyCBS,keygen ToySignedCMux,rounds" {
		t.Errorf("progress stages %v", stages)
	}
	var b bytes.Buffer
	if err := WriteGadgetsCSV(&b, res); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != len(want)+1 || strings.Join(recs[0], ",") != strings.Join(GadgetsCSVHeader, ",") || recs[4][1] != "ToyCBS" {
		t.Errorf("CSV (%v):\n%v", err, recs)
	}

	if _, err := MeasureGadgets(GadgetOptions{Rounds: 0, Reference: ref}); err == nil {
		t.Error("0 rounds accepted")
	}
	if _, err := MeasureGadgets(GadgetOptions{Rounds: 1, Reference: ref, CMux: &ref}); err == nil || !strings.Contains(err.Error(), "no CMux gadget") {
		t.Errorf("CMux on a set without it: %v", err)
	}
}
