package bgv

import "fmt"

// Key switching's per-prime work (transforms, inner products, the final
// division) is independent from row to row (the coefficient rows in
// between are in Rader order, see rader.go: base conversion does not care), so a Scratch may spread it over
// several goroutines. The Evaluator stays shared and immutable; each worker
// owns its transform scratch. Jobs are plain data (rowJob plus the
// parameters in jobState), not closures, so that the one-worker path
// allocates nothing.

// rowJob names a per-row step of a key switch.
type rowJob uint8

const (
	jobInverseQ rowJob = iota // row i <= t: coefficients of c.Rows[i] into coeff[i]
	jobDigitRow               // row r of Q_t·P: raise (forward) if outside the digit, then the inner product
	jobInverseP               // special row j: coefficients of x[t+1+j] into coeff[j]
	jobFinish                 // row i <= t: forward δ_i, then the division by P into out
)

// jobState holds the operands of the running rowJob.
type jobState struct {
	c     *Poly
	key   *SwitchingKey
	t     int
	dg    *digitTables
	first bool
	x     [][]uint64
	out   *Poly
	sd    *scaleDown
}

// NewParallelScratch allocates scratch whose key switches (multiplication,
// relinearization, automorphisms) run their per-prime work on the given
// number of goroutines (the calling one included). With workers <= 1 it is
// NewScratch. The extra memory is one transform buffer per worker.
func (pr *Params) NewParallelScratch(workers int) *Scratch {
	sc := pr.NewScratch()
	for w := 1; w < workers; w++ {
		sc.trW = append(sc.trW, pr.ringQP.NewScratch())
	}
	return sc
}

// Workers returns the number of goroutines sc's key switches use.
func (sc *Scratch) Workers() int { return 1 + len(sc.trW) }

// forRows runs job on rows 0..count-1: worker w (w = 0 is the caller) takes
// rows w, w+W, w+2W, ... (strided, so that cheap rows, e.g. a digit's own,
// spread over the workers).
func (sc *Scratch) forRows(pr *Params, job rowJob, count int) {
	workers := sc.Workers()
	if workers == 1 {
		pr.runRows(job, 0, 1, count, sc.tr, sc)
		return
	}
	sc.wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		go pr.runRowsAsync(job, w, workers, count, sc.trW[w-1], sc)
	}
	pr.runRows(job, 0, workers, count, sc.tr, sc)
	sc.wg.Wait()
}

func (pr *Params) runRowsAsync(job rowJob, w, workers, count int, tr []uint64, sc *Scratch) {
	defer sc.wg.Done()
	pr.runRows(job, w, workers, count, tr, sc)
}

// runRows runs job on rows w, w+workers, ... below count with the transform
// scratch tr.
func (pr *Params) runRows(job rowJob, w, workers, count int, tr []uint64, sc *Scratch) {
	st := &sc.job
	r := pr.ringQP
	lv := &pr.rns[st.t]
	n := r.n
	for i := w; i < count; i += workers {
		switch job {
		case jobInverseQ:
			r.transforms[i].inverseRader(st.c.Rows[i], sc.coeff[i], tr)
		case jobDigitRow:
			idx := lv.qp[i]
			if !st.dg.inDigit[i] {
				r.transforms[idx].forwardRader(sc.ext[i], sc.ext[i], tr)
			}
			b, a := st.key.B[st.dg.key], st.key.A[st.dg.key]
			r.moduli[idx].mulAdd2Vec(sc.digit[i][:n], b.Rows[idx][:n], a.Rows[idx][:n],
				sc.acc0[i][:n], sc.acc1[i][:n], !st.first)
		case jobInverseP:
			r.transforms[lv.qp[st.t+1+i]].inverseRader(st.x[st.t+1+i], sc.coeff[i], tr)
		case jobFinish:
			r.transforms[i].forwardRader(sc.ext[i], sc.ext[i], tr)
			st.sd.finish(i, st.x[i], sc.ext[i], st.out.Rows[i])
		default:
			panic(fmt.Sprintf("bgv: internal error: unknown row job %d", job))
		}
	}
}
