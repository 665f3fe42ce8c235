package hcc

import (
	"fmt"
	"math"

	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/ir"
)

// MemoryOptions describe the run Program.EstimateMemory prices.
type MemoryOptions struct {
	// Threads is EvalOptions.Threads; 0 means 1.
	Threads int
	// Client counts the client side in the same process (keygen,
	// encryption and decryption, as hcc run does).
	Client bool
	// EncryptOnly prices encryption alone (the keys and the input
	// ciphertexts, as hcc encrypt does), not an evaluation.
	EncryptOnly bool
	// Packs is the number of ciphertext packs of the batch (BGV: ceil of
	// the instances over the slots); 0 means 1. The packs not being
	// evaluated wait, inputs or outputs, at their size.
	Packs int
	// InputRGSW prices inputs encrypted with EncryptOptions.InputRGSW
	// (each input bit also holds its RGSW: 192 KiB in memory at
	// STD128_CBS); sets without input RGSWs refuse it.
	InputRGSW bool
}

// MemoryEstimate is a run's predicted peak memory.
type MemoryEstimate struct {
	// Total is the predicted peak of the memory the run allocates, in
	// bytes. The whole process measured 1.26-1.5 times Total beyond its
	// size before keygen: leave that margin when comparing with the free
	// memory.
	Total int64
	// Text describes Total by part ("about 9.8 GB (keys 180.9 MB, ...)").
	Text string
	// Advice is what to do when Total does not fit, for the engine ("put
	// fewer instances in each batch ..."); "" leaves it to the caller.
	Advice string
}

// memoryScheme is a parameter set that can price a run before any key is
// made.
type memoryScheme interface {
	estimateMemory(p *Program, o MemoryOptions) (MemoryEstimate, error)
}

// EstimateMemory predicts the peak memory of running p as o says, before
// any key is made, so that a caller can refuse a run that cannot fit.
// Every engine gives one (BGV, the FHEW gate sets: engine_fhew_memory.go,
// the wide-table sets: engine_fhew_wide_memory.go); ok is false only for
// an engine without one.
func (p *Program) EstimateMemory(o MemoryOptions) (est MemoryEstimate, ok bool, err error) {
	ms, ok := p.scheme.(memoryScheme)
	if !ok {
		return MemoryEstimate{}, false, nil
	}
	// An engine whose encryption needs no passes (FHEW) prices encryption
	// from the interface alone (the input bits), as hcc encrypt compiles it.
	if p.interfaceOnly && !(!p.engine.clientNeedsPasses() && o.EncryptOnly) {
		return MemoryEstimate{}, false, fmt.Errorf("%s was compiled with InterfaceOnly: no memory estimate", p.originName())
	}
	if _, wide := p.scheme.(*wideScheme); o.InputRGSW && !wide {
		return MemoryEstimate{}, false, errNoInputRGSW(p.engine.Name(), p.scheme.name())
	}
	est, err = ms.estimateMemory(p, o)
	return est, err == nil, err
}

// estimateMemory is bgv.(*Params).EstimateMemory at the program's input
// level, plus the packs waiting beside the one being evaluated.
func (s *bgvScheme) estimateMemory(p *Program, o MemoryOptions) (MemoryEstimate, error) {
	level, err := p.level.get(func() (int, error) { return s.pr.LevelForCircuit(p.circuit) })
	if err != nil {
		return MemoryEstimate{}, err
	}
	e, err := s.pr.EstimateMemory(p.circuit, level, bgv.MemoryOptions{Threads: o.Threads, Client: o.Client || o.EncryptOnly})
	if err != nil {
		return MemoryEstimate{}, err
	}
	packs := int64(max(o.Packs, 1))
	in, out := int64(p.circuit.NumInputBits()), int64(p.circuit.NumOutputBits())
	if o.EncryptOnly {
		total := e.Keys + packs*in*e.Ciphertext
		return MemoryEstimate{Total: total, Text: fmt.Sprintf("about %s (keys %s, %d input ciphertexts of %s at level %d)",
			bgv.FormatBytes(total), bgv.FormatBytes(e.Keys), packs*in, bgv.FormatBytes(e.Ciphertext), level)}, nil
	}
	text := e.String()
	if packs > 1 {
		// Waiting packs: inputs at the input level, outputs (switched to
		// level 0) counted at the input level too, an upper bound.
		wait := (packs - 1) * max(in, out) * e.Ciphertext
		e.Total += wait
		text = fmt.Sprintf("about %s (%s for one pack; %d more packs waiting %s)", bgv.FormatBytes(e.Total), text[len("about "):], packs-1, bgv.FormatBytes(wait))
	}
	return MemoryEstimate{Total: e.Total, Text: text}, nil
}

// MaxFailureLog2 is the predicted failure per run (log2) above which a
// program is reported as unreliable: the bound the FHEW LUT mapper keeps
// for each function, 2^-40.
const MaxFailureLog2 = -40

// failureScheme is a parameter set whose runs can fail with a predicted
// probability (FHEW: a bootstrap's noise can flip its output bit).
type failureScheme interface {
	failureLog2(c *ir.Circuit) (float64, bool)
}

// FailureLog2 is the noise model's predicted failure probability of one
// run of the program (log2, a union bound over its bootstraps); ok is
// false when the engine predicts none (BGV decrypts correctly whenever
// the noise simulation Eval checks succeeds) or the program was compiled
// with InterfaceOnly. Compare it with MaxFailureLog2, or use
// FailureWarning.
func (p *Program) FailureLog2() (log2 float64, ok bool) {
	fs, isFS := p.scheme.(failureScheme)
	if !isFS || p.interfaceOnly {
		return 0, false
	}
	return fs.failureLog2(p.circuit)
}

// FailureWarning is a one-line warning when the predicted failure per run
// is above 2^MaxFailureLog2 (the outputs are then wrong in a measurable
// share of runs), else "".
func (p *Program) FailureWarning() string {
	f, ok := p.FailureLog2()
	if !ok || f <= MaxFailureLog2 {
		return ""
	}
	return fmt.Sprintf("predicted failure 2^%.1f per run on %s is above 2^%d: about 1 run in %.0f gives wrong outputs; "+
		"use a set with a lower failure (the default %s) or a lower PARITY failure bound", f, p.scheme.name(), MaxFailureLog2,
		math.Max(1, math.Round(math.Exp2(-f))), fhewDefaultParams)
}
