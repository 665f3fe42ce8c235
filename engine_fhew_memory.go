package hcc

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
	"github.com/hcc-fhe/hcc/ir"
)

// The memory estimate of the FHEW gate sets (memoryScheme). A gate
// ciphertext is small (2(N+1) bytes, 2 KiB at N = 1024) but the keys are
// not (STD128_T_CMUX's ~250 MB with the CMux gadget's), and a batch runs
// as one scheduler run over every instance, so a large batch's waiting
// inputs and outputs add up. The parts, as backend/fhew allocates them:
//
//   - the evaluation key (fhew.EvaluationKey.SizeBytes, computed here from
//     the set without making one: TestFHEWEvalKeyBytes checks the formula
//     against real keys), with the CMux gadget's gate-mode CBS key and
//     lower keys on HasCMux sets, plus the CBS evaluator's monomial table;
//   - the run: the runtime evaluates the lowest ready node first, so on a
//     replicated batch circuit (instance-major) it holds about one
//     instance's live width at a time; fhewLiveWidth simulates that order
//     (a value lives from its node to its last reader; outputs stay) and
//     each of the Threads workers may hold one more in flight. Each pooled
//     ciphertext may carry a select form (a CBS RGSW, ~131 KB on
//     STD128_T_CMUX) once it held a SEL output, or a multi-output LUT's
//     accumulator (8N bytes): both are counted on min(nodes of that kind
//     in the batch, pool size). Per worker one fhew.Scratch (with the CMux
//     scratch on HasCMux sets);
//   - the batch: every instance's inputs and outputs (the runtime holds the
//     inputs until they are released, the outputs until the run ends).
//
// The factors on the parts were measured (hcc under /usr/bin/time -v,
// maximum resident size; docs/library.md has the table), not derived: the
// keys are one allocation that stays live, so the collector's headroom
// (wideGCFactor) applies to them only when keygen's temporaries are
// garbage beside them (Client: hcc run; 1.72-1.83 times the keys
// measured), and eval holds about fhewKeyRead times them while the key
// file is read and decoded (1.25-1.34 measured). The batch's ciphertexts
// measured 1.0 times their size on hcc run (the inputs are released as the
// run goes and the outputs replace them) and 2.0 times on hcc eval (the
// file read beside them and the one written). The run's part, small, gets
// the collector's factor.

// The measured factors (see above), each with a margin over the largest
// measured ratio.
const (
	fhewKeyRead     = 1.4  // eval: the key file read and decoded beside the key
	fhewBatchClient = 1.25 // run: the batch's ciphertexts
	fhewBatchFiles  = 2.5  // eval: the batch's ciphertexts and files
)

// fhewCtBytes is one gate ciphertext's heap (A, N uint16s, plus the
// struct).
func fhewCtBytes(p fhew.Params) int64 { return 2*int64(p.RingDegree()) + 64 }

// fhewKSWidth is the LWE key switch's row width (lwe.go ksWidth).
func fhewKSWidth(n int) int64 { return int64((n + 1 + 31) &^ 31) }

// fhewEvalKeyBytes is fhew.EvaluationKey.SizeBytes's total for a key of p:
// the blind-rotation RGSWs (two slabs, LMKCDEY one, of n RGSWs of 2·dg
// rows of 2N words), the automorphism keys (w of dg rows, LMKCDEY w+1),
// the LWE key switch (N·dks·B_ks/2 rows of ksWidth uint16s) and, on CMux
// sets, the lower keys (N_c/N_g automorphism-key-sized parts) and the
// gate-mode CBS key (cbs.EvaluationKey.SizeBytes without its LWE key
// switch, with the lift key).
func fhewEvalKeyBytes(p fhew.Params) int64 {
	N, n, dg := int64(p.RingDegree()), p.LWEDim(), int64(p.GadgetDigits())
	row := 2 * N
	rgsw, auto := 2*dg*row, dg*row
	slabs := int64(2)
	if p.Method() == fhew.MethodLMKCDEY {
		slabs = 1
	}
	words := slabs * int64(n) * rgsw
	switch p.Method() {
	case fhew.MethodSigned:
		words += int64(p.Window()) * auto
	case fhew.MethodLMKCDEY:
		words += int64(p.Window()+1) * auto
	}
	half := int64(1) << (p.Literal().LogBKS - 1)
	bytes := 4*words + 2*N*int64(p.KeySwitchDigits())*half*fhewKSWidth(n)
	if cp, ok := p.CMuxParams(); ok {
		parts := int64(cp.N()) / N
		bytes += 4 * parts * auto
		l := cp.Literal()
		poly := widePolyBytes(cp)
		bytes += int64(l.LWEDim) * 2 * 4 * int64(l.BR.Digits) * poly // brk
		bytes += int64(l.LogN+1) * 2 * int64(l.Trace.Digits) * poly  // trace and scheme switch
		bytes += 2 * int64(l.BR.Digits) * poly                       // lift key
	}
	return bytes
}

// fhewScratchBytes bounds one fhew.Scratch (NewScratch): the accumulator
// and temporaries (6 N-word and 2 N-doubleword buffers), the 2·dg digit
// polynomials, the key switch's buffers, the blind rotation's lists and,
// on CMux sets, the CMux scratch (a cbs.Scratch, two RLWEs, a wide bit
// and N_c/N_g·dg digit polynomials).
func fhewScratchBytes(p fhew.Params) int64 {
	N, n, dg := int64(p.RingDegree()), int64(p.LWEDim()), int64(p.GadgetDigits())
	b := 6*4*N + 2*8*N + 2*dg*4*N + 2*(N+1) + 2*(n+1) + 2*fhewKSWidth(int(n)) + 4*N*int64(p.KeySwitchDigits()) +
		4*int64(p.BlindRotationModulus())/2 + 4*n + 4*n
	if cp, ok := p.CMuxParams(); ok {
		parts := int64(cp.N()) / N
		b += wideScratchBytes(cp) + 4*widePolyBytes(cp) + int64(cbs.WideBitSize(cp)) + 4*int64(cp.N()) +
			4*N + parts*dg*4*N + 4*2*N + 2*(n+1)
	}
	return b
}

// fhewSelBytes is one select form (cbs.Evaluator.NewRGSW), 0 without the
// CMux gadget.
func fhewSelBytes(p fhew.Params) int64 {
	cp, ok := p.CMuxParams()
	if !ok {
		return 0
	}
	return wideRGSWBytes(cp)
}

// fhewMonoBytes is the CBS evaluator's monomial table on CMux sets.
func fhewMonoBytes(p fhew.Params) int64 {
	cp, ok := p.CMuxParams()
	if !ok {
		return 0
	}
	return wideMonoBytes(cp)
}

// fhewLiveWidth is the most ciphertexts the runtime allocates at once for
// one instance of c when it evaluates in node order (its lowest-ready-first
// order on one thread): each non-input node's value (a constant's too) lives
// from its node to its last reader, outputs to the end. It also returns the
// number of SEL and MLUT nodes.
func fhewLiveWidth(c *ir.Circuit) (peak, sels, mluts int) {
	last := make([]int, len(c.Nodes))
	for i := range last {
		last[i] = -1
	}
	for i := range c.Nodes {
		for _, x := range c.Nodes[i].In {
			last[x] = i
		}
	}
	for _, b := range c.Outputs {
		for _, x := range b.Bits {
			last[x] = len(c.Nodes) // never released
		}
	}
	ends := make([]int, len(c.Nodes)+1)
	live := 0
	for i := range c.Nodes {
		switch c.Nodes[i].Op {
		case ir.OpInput: // the caller's ciphertexts, counted with the batch
			continue
		case ir.OpSel:
			sels++
		case ir.OpMLUT:
			mluts++
		}
		live++
		peak = max(peak, live)
		if last[i] >= 0 {
			ends[last[i]]++
		} else {
			live-- // no reader: freed at once
		}
		live -= ends[i]
	}
	return peak, sels, mluts
}

// estimateMemory is memoryScheme's for an FHEW gate set (see above).
func (s *fhewScheme) estimateMemory(p *Program, o MemoryOptions) (MemoryEstimate, error) {
	ct := fhewCtBytes(s.p)
	packs := int64(max(o.Packs, 1))
	in, out := int64(p.circuit.NumInputBits()), int64(p.circuit.NumOutputBits())
	gc := wideGCFactor()
	if o.EncryptOnly {
		return encryptOnlyEstimate(packs*in, ct), nil
	}
	keys := fhewEvalKeyBytes(s.p) + fhewMonoBytes(s.p)
	threads := int64(wideThreads(o.Threads))
	width, sels, mluts := fhewLiveWidth(p.circuit)
	pool := int64(width) + threads
	nsel := min(packs*int64(sels), pool)
	nacc := min(packs*int64(mluts), pool)
	run := pool*ct + nsel*fhewSelBytes(s.p) + nacc*8*int64(s.p.RingDegree()) + threads*fhewScratchBytes(s.p)
	kf, bf := gc, fhewBatchClient
	if !o.Client {
		kf, bf = fhewKeyRead, fhewBatchFiles
	}
	batch := packs * (in + out) * ct
	total := int64(kf*float64(keys) + bf*float64(batch) + gc*float64(run))
	text := fmt.Sprintf("about %s (keys %s; the run %s: %d live ciphertexts of %s", bgv.FormatBytes(total), bgv.FormatBytes(keys),
		bgv.FormatBytes(run), pool, bgv.FormatBytes(ct))
	if nsel > 0 {
		text += fmt.Sprintf(", %d select forms of %s", nsel, bgv.FormatBytes(fhewSelBytes(s.p)))
	}
	text += fmt.Sprintf(", %d workers; %d instances' inputs and outputs %s; keys x%.3g, ciphertexts x%.3g, run x%.3g for the collector and files)",
		threads, packs, bgv.FormatBytes(batch), kf, bf, gc)
	return MemoryEstimate{Total: total, Advice: batchAdvice, Text: text}, nil
}

var _ memoryScheme = (*fhewScheme)(nil)
