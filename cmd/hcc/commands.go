package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/ir"
)

// loadCircuit loads the command's FILE argument with its -circuit and
// -style flags (no engine passes).
func loadCircuit(e *cmdEnv) (*ir.Circuit, error) {
	return hcc.LoadCircuit(e.source(e.args[0]), hcc.Style(e.style))
}

// compileFlags are compile's flags beyond the circuit selection.
type compileFlags struct {
	workflowFlags
	verbose bool
}

func compileCommand() *command {
	f := &compileFlags{}
	return &command{
		name: "compile", args: "FILE", doc: "compile a circuit, print its statistics and write it as .hir, or for a backend as a program (.hcp)",
		run: func(e *cmdEnv) error { return runCompile(e, f) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			outFlag(fs, e, "write the circuit to `OUT.hir` (.txt: Bristol; with --backend, .hcp: the compiled program for eval, encrypt, decrypt and run)")
			fs.StringVar(&f.backend, "backend", "", "compile for `backend` "+strings.Join(hcc.Engines(), " or ")+" (fhew: LUT mapping against --params; bgv: lowest AND-depth and the parameter choice); empty: no passes")
			fs.StringVar(&f.params, "params", "", "parameter `set` the program is compiled for; "+paramsHelp())
			fs.BoolVar(&f.insecure, "insecure", false, "allow the insecure Toy parameter sets")
			fs.IntVar(&f.instances, "instances", 0, "bgv: size the parameter choice for `N` instances (slots)")
			f.parityFailureFlag(fs)
			fs.BoolVar(&f.verbose, "v", false, "report the cost after every pass (fhew: bootstraps, bootstrap depth, critical path), and the predicted failure")
		},
	}
}

func runCompile(e *cmdEnv, f *compileFlags) error {
	if f.backend == "" {
		if strings.HasSuffix(e.out, ".hcp") {
			return fmt.Errorf("writing a compiled program (%s) needs --backend %s", e.out, strings.Join(hcc.Engines(), "|"))
		}
		if e.out != "" {
			if err := hcc.CheckWritable(e.out, e.args...); err != nil {
				return err
			}
		}
		c, err := loadCircuit(e)
		if err != nil {
			return err
		}
		fmt.Fprint(e.stdout, c.Stats()) // no backend: sizes and depths, no bootstraps
		return writeCircuit(e, c)
	}
	f.threads = 1 // compile runs no evaluation
	if err := f.checkCheap(); err != nil {
		return err
	}
	if e.out != "" {
		if err := hcc.CheckWritable(e.out, e.args...); err != nil {
			return err
		}
	}
	var opts []hcc.CompileOption
	if f.verbose {
		opts = append(opts, hcc.ObservePasses(func(pass, summary string) {
			fmt.Fprintf(e.stdout, "%-12s %s\n", pass, summary)
		}))
	}
	p, err := hcc.Compile(e.source(e.args[0]), f.target(e, f.backend, f.params, f.insecure), opts...)
	if err != nil {
		return err
	}
	e.warn(p.SecurityWarning())
	printChoice(e, p)
	e.warn(p.FailureWarning())
	if f.verbose {
		fmt.Fprintln(e.stdout, p.Details())
	}
	fmt.Fprint(e.stdout, p.Stats())
	if !strings.HasSuffix(e.out, ".hcp") {
		return writeCircuit(e, p.Circuit())
	}
	data, err := p.MarshalBinary()
	if err != nil {
		return err
	}
	if err := hcc.WriteFile(e.out, data, 0o644); err != nil {
		return err
	}
	h := p.Hash()
	fmt.Fprintf(e.stdout, "wrote %s (program %x for %s/%s)\n", e.out, h[:8], p.Target().Engine, p.Target().Params)
	return nil
}

// writeCircuit writes c to -o, if given, as .hir (or Bristol for .txt),
// atomically.
func writeCircuit(e *cmdEnv, c *ir.Circuit) error {
	if e.out == "" {
		return nil
	}
	var buf bytes.Buffer
	var err error
	if strings.HasSuffix(e.out, ".txt") || strings.HasSuffix(e.out, ".bristol") {
		err = ir.WriteBristol(&buf, c)
	} else {
		err = ir.WriteHIR(&buf, c)
	}
	if err != nil {
		return err
	}
	if err := hcc.WriteFile(e.out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", e.out)
	return nil
}

func runSim(e *cmdEnv) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	in, err := hcc.ParseInputs(c, e.ins...)
	if err != nil {
		return err
	}
	out, err := c.Eval(in)
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, hcc.FormatOutputs(c, out))
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

// writeOut runs write on the -o file (written atomically), or on standard
// output without -o.
func writeOut(e *cmdEnv, write func(io.Writer) error) error {
	if e.out == "" {
		return write(e.stdout)
	}
	// The circuit file is an input: refuse to write over it.
	if err := hcc.CheckWritable(e.out, e.args...); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	return hcc.WriteFile(e.out, buf.Bytes(), 0o644)
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
