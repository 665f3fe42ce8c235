package load

import (
	"math/big"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
)

// Inputs parses --in assignments for c's inputs (hcc.ParseInputs).
func Inputs(c *ir.Circuit, assigns []string) (ir.Values, error) {
	return hcc.ParseInputs(c, assigns...)
}

// ParseValue reads one element of bus (hcc.ParseValue).
func ParseValue(s string, bus *ir.Bus) (*big.Int, error) { return hcc.ParseValue(s, bus) }

// FormatValue renders one element of bus (hcc.FormatValue).
func FormatValue(bus *ir.Bus, v *big.Int) (dec, hex string) { return hcc.FormatValue(bus, v) }

// Outputs renders c's outputs as hcc sim prints them (hcc.FormatOutputs).
func Outputs(c *ir.Circuit, vals ir.Values) string { return hcc.FormatOutputs(c, vals) }
