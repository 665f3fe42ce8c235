// Package load reads circuits and input values the way the hcc command line
// does, for every command (and later tools) that takes a circuit file:
// HDL source (.hdl, compiled with package lang), the .hir text format, or a
// Bristol-fashion netlist.
package load

import (
	"fmt"
	"strings"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
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

// Circuit loads the circuit in path: files ending in ".hdl" are compiled
// with lang.CompileFile, anything else is read by ir.ReadFile (.hir text, or
// Bristol fashion with buses in0.., out0..). The result passes ir.Verify.
// Errors from the HDL compiler keep their multi-line source context.
func Circuit(path string, opts Options) (*ir.Circuit, error) {
	if strings.HasSuffix(path, ".hdl") {
		return lang.CompileFile(path, lang.Options{Circuit: opts.Circuit, Style: opts.Style})
	}
	c, err := ir.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if opts.Circuit != "" && opts.Circuit != c.Name {
		return nil, fmt.Errorf("%s holds circuit %q, not %q", path, c.Name, opts.Circuit)
	}
	return c, nil
}

// ParseStyle parses "size" or "depth" (the -style flag).
func ParseStyle(s string) (stdlib.Style, error) {
	switch s {
	case "size":
		return stdlib.SizeOptimized, nil
	case "depth":
		return stdlib.DepthOptimized, nil
	}
	return 0, fmt.Errorf("unknown style %q (want size or depth)", s)
}
