package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/fhewbench"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotFigure2 draws Figure 2 (NAND median ms against w, one line per set
// and method) as a PNG: solid lines for Signed, dashed for LMKCDEY, one
// colour per parameter set.
func plotFigure2(w io.Writer, pts []fhewbench.Figure2Point) error {
	p := plot.New()
	p.Title.Text = "NAND time against the window w (hcc bench fhew)"
	p.X.Label.Text = "window w (automorphism keys)"
	p.Y.Label.Text = "NAND median (ms)"
	// The curves sit well above zero: the legend goes below them.
	p.Legend.Top = false
	var sets []string
	for _, pt := range pts {
		found := false
		for _, s := range sets {
			found = found || s == pt.Set
		}
		if !found {
			sets = append(sets, pt.Set)
		}
	}
	for si, set := range sets {
		for _, m := range methodsOf(pts) {
			var xy plotter.XYs
			for _, pt := range pts {
				if pt.Set == set && pt.Method == m {
					xy = append(xy, plotter.XY{X: float64(pt.Window), Y: pt.NANDMedianMs})
				}
			}
			if len(xy) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xy)
			if err != nil {
				return fmt.Errorf("figure 2 line %s %s: %w", set, m, err)
			}
			line.Color = plotutil.Color(si)
			line.Width = vg.Points(1.5)
			points.Color = line.Color
			points.Shape = plotutil.Shape(int(m))
			if m == fhew.MethodLMKCDEY {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			p.Add(line, points)
			p.Legend.Add(fmt.Sprintf("%s %s", set, m), line, points)
		}
	}
	p.Add(plotter.NewGrid())
	p.X.Min, p.X.Max = 0.5, 0.5
	for _, pt := range pts {
		p.X.Max = max(p.X.Max, float64(pt.Window)+0.5)
	}
	var ticks []plot.Tick
	for w := 1; float64(w) < p.X.Max; w++ {
		ticks = append(ticks, plot.Tick{Value: float64(w), Label: strconv.Itoa(w)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min = 0
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("figure 2 plot: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}
