package fhew

import (
	"bytes"
	"strings"
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
