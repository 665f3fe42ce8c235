package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/cmd/hcc/load"
	"github.com/hcc-fhe/hcc/ir"
)

// loadCircuit loads the command's FILE argument with its -circuit and -style flags.
func loadCircuit(e *cmdEnv) (*ir.Circuit, error) {
	style, err := load.ParseStyle(e.style)
	if err != nil {
		return nil, err
	}
	return load.Circuit(e.args[0], load.Options{Circuit: e.circuit, Style: style})
}

// compileFlags are compile's flags beyond the circuit selection.
type compileFlags struct {
	workflowFlags
	verbose bool
}

func compileCommand() *command {
	f := &compileFlags{}
	return &command{
		name: "compile", args: "FILE.hdl", doc: "compile a circuit, print its statistics and write it as .hir",
		run: func(e *cmdEnv) error { return runCompile(e, f) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			outFlag(fs, e, "write the circuit to `OUT.hir` (.txt: Bristol)")
			fs.StringVar(&f.backend, "backend", "", "optimise for `backend` fhew (LUT mapping against --params); empty: no passes")
			fs.StringVar(&f.params, "params", defaultParams, "parameter `set` whose LUT capability the mapper targets ("+fmt.Sprint(fhew.Names())+")")
			fs.BoolVar(&f.insecure, "insecure", false, "allow the insecure Toy parameter sets")
			f.parityFailureFlag(fs)
			fs.BoolVar(&f.verbose, "v", false, "report bootstraps, bootstrap depth and critical path after every pass, and the predicted failure")
		},
	}
}

func runCompile(e *cmdEnv, f *compileFlags) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	st := c.Stats() // no backend: sizes and depths, no bootstraps
	if f.backend != "" {
		p, err := f.fhewParams()
		if err != nil {
			return err
		}
		target, err := f.fhewTarget(p)
		if err != nil {
			return err
		}
		var observe func(string, *ir.Circuit)
		if f.verbose {
			fmt.Fprintf(e.stdout, "%-12s %s\n", "input", passSummary(c, target))
			observe = func(pass string, c *ir.Circuit) {
				fmt.Fprintf(e.stdout, "%-12s %s\n", pass, passSummary(c, target))
			}
		}
		if c, err = compileFHEW(c, target, observe); err != nil {
			return err
		}
		if f.verbose {
			fmt.Fprintf(e.stdout, "%s on %s (PARITY up to %d inputs)\n", predictedFailure(p, c), p.Name(), target.MaxParityInputs())
		}
		st = c.StatsFor(target.Cost())
	}
	fmt.Fprint(e.stdout, st)
	if e.out != "" {
		if err := ir.WriteFile(e.out, c); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", e.out)
	}
	return nil
}

// passSummary is one line of compile -v: what the FHEW backend would pay for c.
func passSummary(c *ir.Circuit, target fhew.LUTTarget) string {
	cost := target.Cost()
	st := c.StatsFor(cost)
	return fmt.Sprintf("%6d nodes %6d bootstraps (%d LUTs, %d PARITY), bootstrap depth %d, critical path %d nodes",
		st.Nodes, st.Costly, st.Count[ir.OpLUT], st.Count[ir.OpParity], st.CostDepth, len(ir.CriticalPath(c, cost.Node)))
}

func runSim(e *cmdEnv) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	in, err := load.Inputs(c, e.ins)
	if err != nil {
		return err
	}
	out, err := c.Eval(in)
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, load.Outputs(c, out))
	return err
}

func runStats(e *cmdEnv) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(e.stdout, c.Stats())
	return err
}

// writeOut runs write on the -o file, or on standard output without -o.
func writeOut(e *cmdEnv, write func(io.Writer) error) error {
	if e.out == "" {
		return write(e.stdout)
	}
	f, err := os.Create(e.out)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func runDot(e *cmdEnv) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	return writeOut(e, func(w io.Writer) error { return ir.WriteDOT(w, c) })
}

func runExportBristol(e *cmdEnv) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	return writeOut(e, func(w io.Writer) error { return ir.WriteBristol(w, c) })
}

func runExportBLIF(e *cmdEnv) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	return writeOut(e, func(w io.Writer) error { return ir.WriteBLIF(w, c) })
}
