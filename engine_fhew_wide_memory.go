package hcc

import (
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"

	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
	"github.com/hcc-fhe/hcc/ir"
)

// The memory estimate of the wide-table sets (memoryScheme). Every bit is
// a wide bit of 8(N+1) bytes (16 KiB at N = 2048), so a batch of a few
// thousand AES instances, not the keys, is what exhausts memory. The
// parts, as cbs allocates them:
//
//   - the evaluation key (cbs.EvaluationKey.SizeBytes, computed here from
//     the set without making one) and the evaluator's monomial table (2N
//     NTT-domain polynomials, cbs.NewEvaluator);
//   - the pack being evaluated: cbs.EvalPlan allocates a wide bit for every
//     table output of the plan up front and one per output, so "all
//     signals of one pack" is what it holds, not a bound; per worker a
//     batch of Scratches and wide bits (wideWorkerBytes); the RGSW cache
//     at its peak, simulated over
//     the plan's levels the way EvalPlan fills and recycles it;
//   - the other packs waiting, inputs or outputs (at the larger of the two
//     sizes), and when a file is written or read (eval, encrypt) the
//     encodings beside the ciphertexts (MarshalBinary holds the
//     ciphertexts, their encodings and the file buffer: three copies);
//   - with input RGSWs (MemoryOptions.InputRGSW), every input bit also
//     holds its RGSW (wideInputRGSWBytes, 192 KiB at STD128_CBS) until its
//     pack has run, and its encoding is cbs.InputRGSWSize larger;
//   - times the collector's headroom (wideGCFactor): each pack's signals
//     become garbage when it ends, so the heap grows to the collector's
//     goal, 1 + GOGC/100 times the live data, before it is collected.
//
// Measured on ToyCBS (a 16-bit adder, --batch of 1000 and 3000 instances,
// hcc run under /usr/bin/time -v, load 1.6): maximum resident 301 MB and
// 809 MB for live estimates of 142 MB and 405 MB, 2.0-2.1 times (GOGC=25:
// 1.45 times), so the estimate with the factor is 0.94-1.0 times the
// measured peak. On STD128_CBS (aes128, 3 instances, 2 threads, --check,
// load 1.5) the estimate is 777 MB and the maximum resident 599 MB, 1.3
// times less: there the keys, which stay live, dominate.
// With input RGSWs (STD128_CBS, load 2.4): hcc encrypt of 8 AES instances
// estimated 1.8 GB, maximum resident 1.08 GB; hcc run of one (--check, 2
// threads) 882 MB against 589 MB.

// wideGCFactor is the garbage collector's headroom: its heap goal is
// 1 + GOGC/100 times the live heap (GOGC 100 unless the environment sets
// it; "off" or unreadable counts as 100).
func wideGCFactor() float64 {
	g, err := strconv.Atoi(os.Getenv("GOGC"))
	if err != nil || g <= 0 {
		g = 100
	}
	return 1 + float64(g)/100
}

// batchAdvice is what to do when a batch's estimate does not fit.
const batchAdvice = "put fewer instances in each batch (split the --batch file)"

// encryptOnlyEstimate prices encryption alone for the FHEW engines: n input
// ciphertexts of ct bytes, wideFileCopies of them while the file is
// written, times the collector's factor.
func encryptOnlyEstimate(n, ct int64) MemoryEstimate {
	gc := wideGCFactor()
	total := int64(gc * float64(wideFileCopies*n*ct))
	return MemoryEstimate{Total: total, Advice: batchAdvice, Text: fmt.Sprintf("about %s (%d input ciphertexts of %s, %d copies while the file is written; x%.2g for the collector)",
		bgv.FormatBytes(total), n, bgv.FormatBytes(ct), wideFileCopies, gc)}
}

// wideFileCopies is how many copies of a ciphertext set exist while it is
// written to a file (Ciphertexts.MarshalBinary).
const wideFileCopies = 3

// widePolyBytes is one ring.Poly2 (two 32-bit residues per coefficient).
func widePolyBytes(p cbs.Params) int64 { return 8 * int64(p.N()) }

// wideEvalKeyBytes is cbs.EvaluationKey.SizeBytes of a key of p: the LWE
// key switch (N·digits·B_ks/2 rows of ceil((n+1)/4) words), two RGSW
// blind-rotation keys per LWE coefficient and LogN+1 ring key-switching
// keys.
func wideEvalKeyBytes(p cbs.Params) int64 {
	l := p.Literal()
	digKS := int64((l.LogQKS + l.LogBKS - 1) / l.LogBKS)
	ks := int64(p.N()) * digKS * int64(1<<(l.LogBKS-1)) * int64((l.LWEDim+1+3)/4) * 8
	brk := int64(l.LWEDim) * 2 * 4 * int64(l.BR.Digits) * widePolyBytes(p)
	trace := int64(l.LogN+1) * 2 * int64(l.Trace.Digits) * widePolyBytes(p)
	return ks + brk + trace
}

// wideMonoBytes is the evaluator's monomial table (2N polynomials).
func wideMonoBytes(p cbs.Params) int64 { return 2 * int64(p.N()) * widePolyBytes(p) }

// wideRGSWBytes is one circuit-bootstrapped RGSW (cbs.Evaluator.NewRGSW:
// 2·digits rows of two polynomials).
func wideRGSWBytes(p cbs.Params) int64 {
	return 2 * int64(p.Literal().CBS.Digits) * 2 * widePolyBytes(p)
}

// wideScratchBytes bounds one cbs.Scratch (NewScratch): twelve
// polynomials, the digit polynomials, the key-switch buffers and three
// N-word buffers; the vertical packing's test polynomials, grown on use,
// are counted as another 2·8 polynomials (a table's at most 8 outputs).
func wideScratchBytes(p cbs.Params) int64 {
	l := p.Literal()
	n, N := int64(l.LWEDim), int64(p.N())
	digKS := int64((l.LogQKS + l.LogBKS - 1) / l.LogBKS)
	nd := 2 * int64(max(l.BR.Digits, l.Trace.Digits, l.CBS.Digits))
	polys := 12 + nd + 2*ir.MaxWideInputs
	return polys*widePolyBytes(p) + 8*(N+1) + 8*((n+4)/4) + 4*N*digKS + 4*(n+1) + 3*8*N
}

// wideWorkerBytes is one EvalPlan worker's working memory: it
// circuit-bootstraps cbs.DefaultBatch forms at once (cbs.NewBatchScratch:
// one Scratch and one form buffer per bootstrap of the batch, plus the
// batch's list of key-switch rows, 8 bytes per coefficient digit).
func wideWorkerBytes(p cbs.Params) int64 {
	l := p.Literal()
	digKS := int64((l.LogQKS + l.LogBKS - 1) / l.LogBKS)
	k := int64(cbs.DefaultBatch)
	return k*(wideScratchBytes(p)+int64(cbs.WideBitSize(p))) + 8*k*int64(p.N())*digKS
}

// wideFormKey identifies a form by its terms, as cbs.EvalPlan's RGSW cache
// does (a form's Const is folded into its readers).
func wideFormKey(f *ir.LinearForm) string {
	b := make([]byte, 0, 4*len(f.Terms))
	for _, t := range f.Terms {
		b = append(b, byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
	}
	return string(b)
}

// widePeakRGSW is the most RGSWs EvalPlan holds at once on plan: it
// bootstraps, level by level, each table input form not cached yet and
// frees (to a pool it reuses) each one after its last reader's level.
func widePeakRGSW(plan *ir.WidePlan) int {
	level := make([]int, plan.NumSignals())
	base := plan.SignalBase()
	key := wideFormKey
	var byLevel [][]int
	uses := map[string]int{}
	for i := range plan.Tables {
		t := &plan.Tables[i]
		l := 0
		for j := range t.In {
			for _, x := range t.In[j].Terms {
				l = max(l, level[x])
			}
			uses[key(&t.In[j])]++
		}
		l++
		for o := range t.Out {
			level[base[i]+o] = l
		}
		for len(byLevel) <= l {
			byLevel = append(byLevel, nil)
		}
		byLevel[l] = append(byLevel[l], i)
	}
	live := map[string]bool{}
	peak := 0
	for _, ids := range byLevel {
		for _, ti := range ids {
			for j := range plan.Tables[ti].In {
				live[key(&plan.Tables[ti].In[j])] = true
			}
		}
		peak = max(peak, len(live))
		for _, ti := range ids {
			for j := range plan.Tables[ti].In {
				k := key(&plan.Tables[ti].In[j])
				if uses[k]--; uses[k] == 0 {
					delete(live, k)
				}
			}
		}
	}
	return peak
}

// wideThreads is the workers cbs.EvalPlan runs for EvalOptions.Threads t.
func wideThreads(t int) int {
	if t <= 0 {
		t = goruntime.GOMAXPROCS(0)
	}
	return min(t, 4*goruntime.NumCPU())
}

// estimateMemory is memoryScheme's for a wide-table set (see above).
// Encryption alone needs neither the evaluation key nor the plan (the
// client never maps).
func (s *wideScheme) estimateMemory(p *Program, o MemoryOptions) (MemoryEstimate, error) {
	bit := int64(cbs.WideBitSize(s.p))
	// An input bit in memory and encoded: with its RGSW (whose encoding is
	// half its size, the uniform halves being a seed), if any.
	inBit, inEnc, inText := bit, bit, ""
	if o.InputRGSW {
		r := wideInputRGSWBytes(s.p)
		if r == 0 {
			return MemoryEstimate{}, errNoInputRGSW("fhew", s.name())
		}
		inBit += r
		inEnc += int64(cbs.InputRGSWSize(s.p))
		inText = fmt.Sprintf(" (input bits with their RGSWs: %s, encoded %s)", bgv.FormatBytes(inBit), bgv.FormatBytes(inEnc))
	}
	packs := int64(max(o.Packs, 1))
	in, out := int64(p.circuit.NumInputBits()), int64(p.circuit.NumOutputBits())
	gc := wideGCFactor()
	if o.EncryptOnly {
		if !o.InputRGSW {
			return encryptOnlyEstimate(packs*in, bit), nil
		}
		// The ciphertexts, their encodings and the file buffer
		// (wideFileCopies), the last two at the encoded size.
		n := packs * in
		total := int64(gc * float64(n*(inBit+(wideFileCopies-1)*inEnc)))
		return MemoryEstimate{Total: total, Advice: batchAdvice, Text: fmt.Sprintf("about %s (%d input ciphertexts with their RGSWs, %s each and %s encoded, %d copies while the file is written; x%.2g for the collector)",
			bgv.FormatBytes(total), n, bgv.FormatBytes(inBit), bgv.FormatBytes(inEnc), wideFileCopies, gc)}, nil
	}
	plan, err := s.plan(p.circuit)
	if err != nil {
		return MemoryEstimate{}, err
	}
	keys := wideEvalKeyBytes(s.p) + wideMonoBytes(s.p)
	threads := int64(wideThreads(o.Threads))
	rgsw := int64(widePeakRGSW(plan))
	bits := int64(plan.NumSignals()) - int64(plan.NumInputs) + int64(len(plan.OutForms))
	run := bits*bit + threads*wideWorkerBytes(s.p) + rgsw*wideRGSWBytes(s.p)
	copies := int64(1)
	if !o.Client {
		copies = wideFileCopies // eval reads and writes ciphertext files
	}
	// The waiting packs: inputs (with their RGSWs, which stay until the
	// pack has run) or outputs, whichever is larger; beside the
	// ciphertexts, copies-1 encodings of them while a file is read or
	// written.
	wait := packs * max(in*(inBit+(copies-1)*inEnc), out*copies*bit)
	total := int64(gc * float64(keys+run+wait))
	return MemoryEstimate{Total: total, Advice: batchAdvice, Text: fmt.Sprintf("about %s (keys %s; one pack's run %s: %d wide bits of %s, %d RGSWs, %d workers; %d packs of %d ciphertexts %s%s; x%.2g for the collector)",
		bgv.FormatBytes(total), bgv.FormatBytes(keys), bgv.FormatBytes(run), bits,
		bgv.FormatBytes(bit), rgsw, threads, packs, max(in, out), bgv.FormatBytes(wait), inText, gc)}, nil
}

var _ memoryScheme = (*wideScheme)(nil)
