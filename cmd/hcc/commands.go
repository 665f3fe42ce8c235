package main

import (
	"fmt"
	"io"
	"os"

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

func runCompile(e *cmdEnv) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, c.Stats())
	if e.out != "" {
		if err := ir.WriteFile(e.out, c); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", e.out)
	}
	return nil
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
