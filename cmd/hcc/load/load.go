// Package load reads circuits and input values the way the hcc command line
// does. It is a thin layer over the hcc package (github.com/hcc-fhe/hcc),
// which owns the formats: new code should call hcc.LoadCircuit,
// hcc.ParseInputs, hcc.ParseValue, hcc.FormatValue and hcc.FormatOutputs.
package load

import (
	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

// Options says how to turn an HDL file into a circuit; it is ignored for
// .hir and Bristol files, which already are circuits (except that Circuit,
// if set, must then match the file's circuit name).
type Options struct {
	// Circuit picks one circuit of an HDL file that declares several.
	Circuit string
	// Style chooses the lowering of arithmetic (stdlib.SizeOptimized is the zero value).
	Style stdlib.Style
}

// Circuit loads the circuit in path (hcc.LoadCircuit): ".hdl" files are
// compiled by package lang, anything else is read by ir.ReadFile. The
// result passes ir.Verify.
func Circuit(path string, opts Options) (*ir.Circuit, error) {
	style := hcc.StyleSize
	if opts.Style == stdlib.DepthOptimized {
		style = hcc.StyleDepth
	}
	return hcc.LoadCircuit(hcc.Source{Name: path, Circuit: opts.Circuit}, style)
}

// ParseStyle parses "size" or "depth" (the -style flag).
func ParseStyle(s string) (stdlib.Style, error) {
	switch hcc.Style(s) {
	case hcc.StyleSize:
		return stdlib.SizeOptimized, nil
	case hcc.StyleDepth:
		return stdlib.DepthOptimized, nil
	}
	_, err := hcc.LoadCircuit(hcc.Source{}, hcc.Style(s)) // the one message for a bad style
	return 0, err
}
