package fhew

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"
)

func TestMeasureTable3AndFigure2(t *testing.T) {
	p, err := NewParams(ToySigned)
	if err != nil {
		t.Fatal(err)
	}
	row, err := MeasureTable3Row(p, 5, 20)
	if err != nil {
		t.Fatal(err)
	}
	if row.NANDMedianMs <= 0 || row.BRKeyMB <= 0 || row.FileMB <= 0 || row.FileMB >= row.EvalKeyMB ||
		row.Noise.GateStd <= 0 || row.Noise.Log2Failure >= -20 || row.AutosMeasured <= 0 || row.AutosTheorem <= 0 {
		t.Fatalf("implausible row %+v", row)
	}
	var b bytes.Buffer
	if err := WriteTable3CSV(&b, []Table3Row{row}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "ToySigned,Signed,4,") {
		t.Fatalf("table CSV:\n%s", b.String())
	}
	pts, err := MeasureFigure2(p, []int{1, 4}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 4 || pts[0].Method != MethodLMKCDEY || pts[3].Window != 4 {
		t.Fatalf("figure points %+v", pts)
	}
	// A larger window never needs more automorphisms.
	if pts[1].Autos > pts[0].Autos || pts[3].Autos > pts[2].Autos {
		t.Fatalf("automorphisms grow with w: %+v", pts)
	}
	b.Reset()
	if err := WriteFigure2CSV(&b, pts); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 5 {
		t.Fatalf("figure CSV has %d lines:\n%s", n, b.String())
	}
}

func TestMeasureTable3Threads(t *testing.T) {
	p, err := NewParams(ToySigned)
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]int{}
	var mu sync.Mutex
	row, err := MeasureTable3(p, MeasureOptions{NAND: 6, NoiseSamples: 10, Threads: 2, Progress: func(s string, done, total int) {
		mu.Lock()
		stages[s] = max(stages[s], done)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if row.Threads != 2 || row.NANDPerSec <= 0 || row.Noise.Samples != 10 {
		t.Fatalf("row %+v", row)
	}
	if !(row.Log2FailureLo <= row.Noise.Log2Failure && row.Noise.Log2Failure <= row.Log2FailureHi) {
		t.Fatalf("interval [%g, %g] misses %g", row.Log2FailureLo, row.Log2FailureHi, row.Noise.Log2Failure)
	}
	if row.ModelLog2Failure != p.GateFailureLog2([]int{1, 1}) || row.ModelGateStd <= row.ModelOutputStd {
		t.Fatalf("model columns %+v", row)
	}
	if stages["keygen"] != 1 || stages["nand"] != 6 || stages["noise"] != 10 {
		t.Fatalf("progress %v", stages)
	}
}

func TestSignTest(t *testing.T) {
	for _, c := range []struct {
		k, n int
		want float64
	}{
		{5, 10, 0},                          // capped at 1
		{0, 10, math.Log2(2.0 / 1024)},      // 2·2^-10
		{10, 10, math.Log2(2.0 / 1024)},     // symmetric
		{1, 10, math.Log2(2.0 * 11 / 1024)}, // 2·(1+10)/2^10
		{0, 0, 0},
	} {
		if got := signTestLog2P(c.k, c.n); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("signTestLog2P(%d, %d) = %g, want %g", c.k, c.n, got, c.want)
		}
	}
	cmp := compareRounds(Figure2Point{}, Figure2Point{}, []float64{1, 2, 3, 4}, []float64{2, 4, 3, 2})
	if cmp.Rounds != 4 || cmp.AFaster != 2 || cmp.Ratio != 0.75 {
		t.Fatalf("comparison %+v", cmp)
	}
}

// The loop's expected automorphism count matches the dynamic programme
// (checked against an independent simulation: 345.8 and 444.9 over 200
// random α) and stays below the theorems' closed form.
func TestAutosByAlgorithm(t *testing.T) {
	base, err := NewParams(STD128_T)
	if err != nil {
		t.Fatal(err)
	}
	lmk, err := base.WithMethod(MethodLMKCDEY, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    Params
		want float64
	}{{base, 347.22}, {lmk, 446.31}} {
		got := autosByAlgorithm(c.p)
		if math.Abs(got-c.want) > 0.01 || got >= c.p.Noise().ExpectedAutomorphisms {
			t.Errorf("%s: %.2f, want %.2f (theorem %.1f)", c.p.Name(), got, c.want, c.p.Noise().ExpectedAutomorphisms)
		}
	}
	// Random α at a Toy set: the measured average is within a few percent.
	p, err := NewParams(ToySigned)
	if err != nil {
		t.Fatal(err)
	}
	row, err := MeasureTable3(p, MeasureOptions{NAND: 10, NoiseSamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(row.AutosMeasured-row.AutosAlgorithm) > 0.05*row.AutosAlgorithm {
		t.Errorf("measured %.1f automorphisms, algorithm %.1f", row.AutosMeasured, row.AutosAlgorithm)
	}
}
