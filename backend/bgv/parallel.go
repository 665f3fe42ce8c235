package bgv

import "fmt"

// Key switching's per-prime work (transforms, inner products, the final
// division, the tensor product) is independent from row to row, and base
// conversion from coefficient to coefficient, so a Scratch may spread both
// over several goroutines. The Evaluator stays shared and immutable; each
// worker owns its transform scratch and row headers. Jobs are plain data
// (rowJob plus the operands in jobState), not closures, so that the
// one-worker path allocates nothing.

// rowJob names a per-row step of a key switch.
type rowJob uint8

const (
	jobInverseQ rowJob = iota // row i <= t: coefficients of c.Rows[i] into coeff[i]
	jobDigitRow               // row r of Q_t·P: raise (forward) if outside the digit, then the inner product
	jobInverseP               // special row j: coefficients of x[t+1+j] into coeff[j]
	jobFinish                 // row i <= t: forward δ_i, then the division by P into out
	jobTensor                 // row i <= t: the tensor product of ta and tb into d0, d1, d2
	jobConvert                // chunk i of convSpan coefficients: conv from cin to cout
)

// convSpan is the number of coefficients per jobConvert chunk.
const convSpan = 4096

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
	ta    *Ciphertext
	tb    *Ciphertext
	conv  *baseConverter
	cin   [][]uint64
	cout  [][]uint64
}

// convHeaders are one worker's row headers for a chunk of a base conversion.
type convHeaders struct {
	in, out, y [][]uint64
}

// convertRows runs conv from in to out (coefficient rows, scratch y, v),
// split into chunks over sc's workers when there are several. Base
// conversion works coefficient by coefficient, so the split changes no value.
func (sc *Scratch) convertRows(pr *Params, conv *baseConverter, in, out [][]uint64) {
	if sc.Workers() == 1 {
		conv.convert(in, out, sc.y, sc.v)
		return
	}
	st := &sc.job
	st.conv, st.cin, st.cout = conv, in, out
	sc.forRows(pr, jobConvert, (len(sc.v)+convSpan-1)/convSpan)
}

// NewParallelScratch allocates scratch whose key switches (multiplication,
// relinearization, automorphisms) run their per-prime work on the given
// number of goroutines (the calling one included). With workers <= 1 it is
// NewScratch. The extra memory is one transform buffer per worker.
func (pr *Params) NewParallelScratch(workers int) *Scratch {
	sc := pr.NewScratch()
	rows := len(pr.q) + len(pr.p)
	for w := 0; w < workers; w++ {
		if w > 0 {
			sc.trW = append(sc.trW, pr.ringQP.NewScratch())
		}
		sc.hdr = append(sc.hdr, convHeaders{in: make([][]uint64, rows), out: make([][]uint64, rows), y: make([][]uint64, rows)})
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
			r.transforms[i].InverseRaderOrder(st.c.Rows[i], sc.coeff[i], tr)
		case jobDigitRow:
			idx := lv.qp[i]
			if !st.dg.inDigit[i] {
				r.transforms[idx].ForwardRaderOrder(sc.ext[i], sc.ext[i], tr)
			}
			b, a := st.key.B[st.dg.key], st.key.A[st.dg.key]
			r.moduli[idx].mulAdd2Vec(sc.digit[i][:n], b.Rows[idx][:n], a.Rows[idx][:n],
				sc.acc0[i][:n], sc.acc1[i][:n], !st.first)
		case jobInverseP:
			r.transforms[lv.qp[st.t+1+i]].InverseRaderOrder(st.x[st.t+1+i], sc.coeff[i], tr)
		case jobFinish:
			r.transforms[i].ForwardRaderOrder(sc.ext[i], sc.ext[i], tr)
			st.sd.finish(i, st.x[i], sc.ext[i], st.out.Rows[i])
		case jobTensor:
			tensorRows(pr.ringQ, st.ta, st.tb, sc.d0, sc.d1, sc.d2, i, count)
		case jobConvert:
			lo := i * convSpan
			hi := min(lo+convSpan, len(sc.v))
			h := &sc.hdr[w]
			for a, row := range st.cin {
				h.in[a] = row[lo:hi]
			}
			for a, row := range st.cout {
				h.out[a] = row[lo:hi]
			}
			for a := range st.cin {
				h.y[a] = sc.y[a][lo:hi]
			}
			st.conv.convert(h.in[:len(st.cin)], h.out[:len(st.cout)], h.y[:len(st.cin)], sc.v[lo:hi])
		default:
			panic(fmt.Sprintf("bgv: internal error: unknown row job %d", job))
		}
	}
}
