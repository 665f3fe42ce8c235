package bgv

import (
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/ir"
)

// The peak memory of a run, estimated before any key exists. At m = 65537 a
// ciphertext at the top level holds 2·22 rows of 65536 words (22.5 MB), so
// a circuit of a thousand input bits needs tens of GB: the estimate lets a
// caller refuse such a run with the figure instead of letting the machine
// swap or the kernel kill it.
//
// What a run holds, and how it is counted:
//
//   - keys: the relinearization key (one (B_j, A_j) pair over Q·P per
//     digit), the automorphism keys asked for, and with Client the secret
//     key, the public key and the encryptor's buffers;
//   - the input ciphertexts at the input level, each released at its last
//     reader unless the caller keeps them (MemoryOptions.KeepInputs);
//   - the run's ciphertexts: the runtime gives each node a ciphertext from
//     its free list (the last one released first) or a new one, which a
//     kernel grows to the level it first writes; released ciphertexts stay
//     allocated for reuse, so the run holds the most it ever had at once.
//     This is replayed in node order, the order the runtime's
//     lowest-index-first schedule follows with one thread, each node at the
//     level the noise simulation gives it; every further thread may hold
//     a few more (runAhead);
//   - per thread, the worker's scratch (Params.NewScratch) with its operand
//     copies at the top level, the MUX temporary and the LUT monomials.
//
// The estimate is of live data allocated from the parameters on: the
// Params themselves, the encoder and the circuit already exist when it is
// asked (what the process holds then is no longer free memory), and slice
// headers are far below a percent. The Go collector lets the heap run past
// the live data (GOGC=100 allows up to twice) while dropped inputs and
// grown rows wait to be collected, so the peak resident size is higher.
// Measured with `hcc run --backend bgv` on 2 threads, beyond what the
// process held before keygen (39 MB at M8191, 360 MB at M65537 for a
// one-gate circuit): examples/tour.hdl at M8191, Total 50 MB, 75 MB more;
// a 1024-bit AND/XOR circuit at M8191, 415 MB, 528 MB more (1.27 times);
// aes128_lowdepth.hdl at M65537 (level 21), 9.8 GB, 12.3 GB more (1.26
// times). A caller comparing Total with the free memory should leave
// that margin.

// runAhead is the allowance per thread beyond the first: on random
// circuits at a toy ring, runs on 2 and 4 threads held at most 5
// ciphertexts per further thread more than the one-thread replay
// (TestEstimateMemoryThreads).
const runAhead = 8

// MemoryOptions describe the run that EstimateMemory prices.
type MemoryOptions struct {
	// Threads is the number of workers (runtime.Options.Threads); 0 means 1.
	Threads int
	// KeepInputs says that the caller holds the input ciphertexts for the
	// whole run (runtime.Options.ReleaseInputs off, or references of its
	// own); otherwise each is freed after its last reader.
	KeepInputs bool
	// AutoKeys is the number of automorphism keys besides the
	// relinearization key (the bit-sliced executor needs none).
	AutoKeys int
	// Client counts the client side in the same process, as hcc run does:
	// the secret and public keys and the encryptor's buffers. Without it
	// only what evaluation needs is counted (hcc eval).
	Client bool
}

// MemoryEstimate is the estimated peak memory of a run, by part, in bytes.
type MemoryEstimate struct {
	Level int // the input level the estimate is for
	// Ciphertext is the size of one ciphertext at Level.
	Ciphertext int64
	// Keys are the keys (and, with Client, the client's buffers).
	Keys int64
	// Ciphertexts is the peak of the ciphertexts held at once: the inputs
	// not yet released and the run's own, Live of them at that moment.
	Ciphertexts int64
	Live        int
	// Scratch is every worker's scratch space.
	Scratch int64
	// Total is the sum: the memory the run needs at its peak.
	Total int64
}

// String describes the estimate, e.g. "about 9.8 GB (keys 180.9 MB, 473
// ciphertexts at once 9.3 GB, 23.1 MB each at input level 21, scratch
// 312.5 MB)".
func (e MemoryEstimate) String() string {
	return fmt.Sprintf("about %s (keys %s, %d ciphertexts at once %s, %s each at input level %d, scratch %s)",
		FormatBytes(e.Total), FormatBytes(e.Keys), e.Live, FormatBytes(e.Ciphertexts), FormatBytes(e.Ciphertext), e.Level, FormatBytes(e.Scratch))
}

// FormatBytes renders n bytes in decimal units (kB, MB, GB), as memory
// figures are quoted.
func FormatBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// EstimateMemory estimates the peak memory of running c on inputs
// encrypted at level (see the notes above for what it counts). It runs the
// noise simulation for the levels of the nodes, so it fails like
// CheckCircuitAt when c does not fit the chain from that level.
func (pr *Params) EstimateMemory(c *ir.Circuit, level int, opts MemoryOptions) (MemoryEstimate, error) {
	if level < 0 || level > pr.MaxLevel() {
		return MemoryEstimate{}, fmt.Errorf("bgv memory estimate: level %d outside 0..%d", level, pr.MaxLevel())
	}
	threads := max(opts.Threads, 1)
	st, err := pr.nodeStates(c, pr.freshInputs(c, level), true)
	if err != nil {
		return MemoryEstimate{}, err
	}
	L, k := len(pr.q), len(pr.p)
	row := int64(pr.n) * 8 // one residue row of uint64
	ctRows := func(rows int) int64 { return 2 * int64(rows) * row }
	e := MemoryEstimate{Level: level, Ciphertext: ctRows(level + 1)}

	// Keys: a switching key is 2 polynomials over the L+k primes of Q·P per digit.
	switching := int64(len(pr.digits)) * 2 * int64(L+k) * row
	e.Keys = switching * int64(1+opts.AutoKeys)
	if opts.Client {
		e.Keys += int64(L)*row + int64(L+k)*row + int64(pr.n)*8                         // SecretKey: S, qp, coeffs
		e.Keys += 2 * int64(L) * row                                                    // PublicKey
		e.Keys += 3*int64(level+1)*row + int64(pr.n)*8 + int64(pr.ringQ.ScratchLen())*8 // Encryptor buffers
	}

	_, e.Ciphertexts, e.Live = pr.replaySchedule(c, st, level, opts.KeepInputs, ctRows)
	lv := pr.scratchLevels(c, st)
	// Threads beyond the first run ahead of node order and finish out of
	// it, so results wait longer for their readers and the free list hands
	// ciphertexts out in another order: allow runAhead more ciphertexts
	// per further thread, at the highest level a kernel writes.
	e.Ciphertexts += int64(runAhead*(threads-1)) * ctRows(lv.write+1)
	e.Live += runAhead * (threads - 1)

	// Scratch (Params.NewScratch): transform scratch, the key-switching
	// rows (coeff L, ext/acc0/acc1/y L+k each), the base-extension floats
	// and the tensor product (3 polynomials of L rows); then what grows on
	// use: the operand copies opA and opB (an operand switched down, at
	// most the highest fanin level), the MUX temporary and the LUT
	// monomial slots.
	scratch := int64(pr.ringQ.ScratchLen())*8 + int64(L)*row + 4*int64(L+k)*row + int64(pr.n)*8 + 3*int64(L)*row
	scratch += 2*ctRows(lv.operand+1) + ctRows(lv.temp) + int64(lv.monomials)*ctRows(lv.lut+1)
	e.Scratch = int64(threads) * scratch

	e.Total = e.Keys + e.Ciphertexts + e.Scratch
	return e, nil
}

// replaySchedule replays the runtime's allocation of ciphertexts in node
// order (runtime.Run with one thread): inputs held from the start at
// level, each node's result taken from the free list (last released first)
// or allocated, grown to the rows its kernel first writes (ctRowsFor), and
// released after its last reader (outputs never). It returns the bytes
// the run has allocated at its end (which the free list keeps: the most it
// held at once), the peak of those plus the inputs still held, and the
// number of ciphertexts alive at the peak of their count.
func (pr *Params) replaySchedule(c *ir.Circuit, st []NoiseState, level int, keepInputs bool, ctRows func(int) int64) (allocated, peak int64, peakLive int) {
	remaining := make([]int32, len(c.Nodes))
	for i := range c.Nodes {
		for _, x := range c.Nodes[i].In {
			remaining[x]++
		}
	}
	for _, b := range c.Outputs {
		for _, id := range b.Bits {
			remaining[id]++ // never released: the caller reads it
		}
	}
	capOf := make([]int, len(c.Nodes)) // rows of each node's ciphertext
	var free []int
	var inputs int64
	live := 0
	for i := range c.Nodes {
		if c.Nodes[i].Op == ir.OpInput {
			if keepInputs || remaining[i] == 0 {
				remaining[i]++ // the caller's, or never read: never released
			}
			inputs += ctRows(level + 1)
			live++
		}
	}
	peak, peakLive = inputs, live
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op == ir.OpInput {
			continue
		}
		need := pr.firstWriteLevel(n, st) + 1
		have := 0
		if k := len(free); k > 0 {
			have, free = free[k-1], free[:k-1]
		}
		if have < need {
			allocated += ctRows(need) - ctRows(have) // the old rows become garbage
			have = need
		}
		capOf[i] = have
		live++
		if allocated+inputs > peak {
			peak = allocated + inputs
		}
		peakLive = max(peakLive, live)
		for _, x := range n.In {
			remaining[x]--
			if remaining[x] != 0 {
				continue
			}
			live--
			if c.Nodes[x].Op == ir.OpInput {
				inputs -= ctRows(level + 1) // dropped, not recycled
			} else {
				free = append(free, capOf[x])
			}
		}
	}
	return allocated, peak, peakLive
}

// firstWriteLevel is the level of the first value a kernel writes into
// node n's output ciphertext, which sizes its rows: the top for constants
// and LUTs (which start from a constant), else at most the lowest level of
// the fanins (a sum switches the higher operand down, a product does so
// and may drop further, MUX writes s·(a+b) first).
func (pr *Params) firstWriteLevel(n *ir.Node, st []NoiseState) int {
	switch n.Op {
	case ir.OpConst0, ir.OpConst1, ir.OpLUT, ir.OpMLUT, ir.OpMOut:
		return pr.MaxLevel()
	}
	lv := pr.MaxLevel()
	for _, x := range n.In {
		lv = min(lv, st[x].Level)
	}
	return lv
}

// workLevels are the levels that size the growing parts of a worker's
// scratch and the results of threads running ahead.
type workLevels struct {
	write     int // highest level a kernel first writes into a result
	operand   int // highest level of an operand switched down (opA, opB)
	temp      int // rows of the MUX temporary (0 without MUX)
	lut       int // highest fanin level of a LUT (its monomials)
	monomials int // LUT monomial slots filled
}

func (pr *Params) scratchLevels(c *ir.Circuit, st []NoiseState) workLevels {
	var lv workLevels
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op == ir.OpInput {
			continue
		}
		lv.write = max(lv.write, pr.firstWriteLevel(n, st))
		for _, x := range n.In {
			lv.operand = max(lv.operand, st[x].Level)
			if n.Op == ir.OpLUT || n.Op == ir.OpMLUT || n.Op == ir.OpMOut {
				lv.lut = max(lv.lut, st[x].Level)
			}
		}
		if n.Op == ir.OpMux || n.Op == ir.OpCMux { // t0 = a + b at their common level
			lv.temp = max(lv.temp, min(st[n.In[1]].Level, st[n.In[2]].Level)+1)
		}
		if n.Op == ir.OpLUT || n.Op == ir.OpMLUT || n.Op == ir.OpMOut {
			// A LUT whose ANF has the constant term starts from the
			// constant 1 at the top level and adds its monomials to it:
			// the constant is switched down through opA.
			if t, in, _ := n.TableView(); ir.ANF(t, len(in))&1 == 1 {
				lv.operand = pr.MaxLevel()
			}
		}
	}
	lv.monomials = lutMonomials(c)
	return lv
}

// lutMonomials counts the monomial slots (worker.mono, indexed by the
// monomial's input mask) that c's LUTs fill: the masks of two or more
// inputs reached by evalLUT's balanced split, over all LUTs (a worker keeps
// each slot once made).
func lutMonomials(c *ir.Circuit) int {
	var used uint64
	var visit func(m uint64)
	visit = func(m uint64) {
		if bits.OnesCount64(m) < 2 || used>>m&1 == 1 {
			return
		}
		used |= 1 << m
		lo, k := uint64(0), bits.OnesCount64(m)/2
		for r := m; k > 0; r &= r - 1 {
			lo |= r & -r
			k--
		}
		visit(lo)
		visit(m &^ lo)
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op != ir.OpLUT && n.Op != ir.OpMLUT && n.Op != ir.OpMOut {
			continue
		}
		t, in, _ := n.TableView()
		anf := ir.ANF(t, len(in))
		for m := uint64(1); m < 1<<uint(len(in)); m++ {
			if anf>>m&1 == 1 {
				visit(m)
			}
		}
	}
	return bits.OnesCount64(used)
}
