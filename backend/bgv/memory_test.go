package bgv

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// ctBytes is the memory ct's rows take: their capacity, which a recycled
// ciphertext keeps from its highest level.
func ctBytes(ct *Ciphertext) int64 {
	var b int64
	for _, p := range ct.Value {
		if cap(p.Rows) > 0 {
			b += int64(cap(p.Rows)) * int64(cap(p.Rows[:1][0])) * 8
		}
	}
	return b
}

func rowsBytes(rows [][]uint64) int64 {
	var b int64
	for _, r := range rows {
		b += int64(cap(r)) * 8
	}
	return b
}

func polyBytes(p *Poly) int64 { return rowsBytes(p.Rows[:cap(p.Rows)]) }

func keyBytes(k *SwitchingKey) int64 {
	var b int64
	for j := range k.B {
		b += polyBytes(k.B[j]) + polyBytes(k.A[j])
	}
	return b
}

// scratchBytes is what a worker holds: its Scratch, the MUX temporary and
// the LUT monomials.
func scratchBytes(w *worker) int64 {
	sc := w.sc
	b := int64(len(sc.tr)+len(sc.v))*8 + rowsBytes(sc.coeff) + rowsBytes(sc.ext) + rowsBytes(sc.acc0) +
		rowsBytes(sc.acc1) + rowsBytes(sc.y) + polyBytes(sc.d0) + polyBytes(sc.d1) + polyBytes(sc.d2) +
		ctBytes(sc.opA) + ctBytes(sc.opB) + ctBytes(sc.rotated) + ctBytes(w.t0)
	for _, m := range w.mono {
		if m != nil {
			b += ctBytes(m)
		}
	}
	return b
}

// recordingBackend is the executor with every ciphertext and worker it
// makes recorded, to sum their sizes after a run.
type recordingBackend struct {
	*Backend
	mu      sync.Mutex
	cts     []*Ciphertext
	workers []*worker
}

func (b *recordingBackend) NewWorker() backend.Worker {
	w := b.Backend.NewWorker().(*worker)
	b.mu.Lock()
	b.workers = append(b.workers, w)
	b.mu.Unlock()
	return &recordingWorker{w, b}
}

type recordingWorker struct {
	*worker
	b *recordingBackend
}

func (w *recordingWorker) NewCiphertext() backend.Ciphertext {
	ct := w.worker.NewCiphertext().(*Ciphertext)
	w.b.mu.Lock()
	w.b.cts = append(w.b.cts, ct)
	w.b.mu.Unlock()
	return ct
}

// memoryCircuits are random circuits lowered for depth that fit ToyM257Deep
// from their lowest usable level: XOR-heavy and AND-heavy, LUTs, MUXes,
// constants, dead logic.
func memoryCircuits(t *testing.T, pr *Params, n int) []*ir.Circuit {
	rng := rand.New(rand.NewPCG(65, 537))
	var out []*ir.Circuit
	for len(out) < n {
		c := circuittest.Random(t, rng, circuittest.Config{Inputs: 4 + rng.IntN(12), Gates: 20 + rng.IntN(80), MaxLUTInputs: 4, Window: 6})
		d, err := optimize.ForDepth().Run(c)
		if err != nil {
			t.Fatal(err)
		}
		if pr.CheckCircuit(d) == nil {
			out = append(out, d)
		}
	}
	return out
}

// encryptFor encrypts the bits in (nil: zeros) for c at LevelForCircuit's
// level, where the Encryptor's ciphertexts pass CheckInputs (their states
// are FreshState's; TestLevelForCircuitRealInputs).
func encryptFor(t *testing.T, pr *Params, en *Encryptor, c *ir.Circuit, in []uint64) (int, []backend.Ciphertext, int64) {
	t.Helper()
	level, err := pr.LevelForCircuit(c)
	if err != nil {
		t.Fatal(err)
	}
	cts := make([]backend.Ciphertext, c.NumInputBits())
	typed := make([]*Ciphertext, len(cts))
	var bytes int64
	pt := NewBinaryPoly(pr.N())
	for i := range cts {
		clear(pt)
		if in != nil {
			pt[0] = in[i] // the constant polynomial: the bit in every slot
		}
		ct, err := en.EncryptAtLevel(pt, level)
		if err != nil {
			t.Fatal(err)
		}
		cts[i], typed[i], bytes = ct, ct, bytes+ctBytes(ct)
	}
	if err := pr.CheckInputs(c, typed); err != nil {
		t.Fatalf("inputs at LevelForCircuit's level %d: %v", level, err)
	}
	return level, cts, bytes
}

// TestEstimateMemoryMatchesRun runs circuits on real ciphertexts at a toy
// ring and compares the estimate with the sizes of what the run held: the
// run's ciphertexts (all kept by the free list, so their sum at the end is
// the most the run had), the keys and every worker's scratch. With one
// thread the schedule is the node order that the estimate replays; the
// estimate may only be above (a kernel's first write is bounded by its
// fanins' levels, not predicted exactly).
func TestEstimateMemoryMatchesRun(t *testing.T) {
	pr := testParams(t, ToyM257DeepLiteral)
	kg := NewKeyGenerator(pr, NewSamplerFromSeed([32]byte{65}))
	sk := kg.GenSecretKey()
	pk := kg.GenPublicKey(sk)
	relin := kg.GenRelinKey(sk)
	ev := NewEvaluator(pr, NewEvaluationKeySet(relin))
	en := NewSymmetricEncryptor(pr, sk, NewSamplerFromSeed([32]byte{66}))
	de := NewDecryptor(pr, sk)
	for ci, c := range memoryCircuits(t, pr, 6) {
		for _, threads := range []int{1, 2} {
			in := make([]uint64, c.NumInputBits())
			rng := rand.New(rand.NewPCG(uint64(ci), 1))
			for i := range in {
				in[i] = rng.Uint64() & 1
			}
			level, cts, inputBytes := encryptFor(t, pr, en, c, in)
			est, err := pr.EstimateMemory(c, level, MemoryOptions{Threads: threads, KeepInputs: true})
			if err != nil {
				t.Fatal(err)
			}
			be := &recordingBackend{Backend: NewBackend(ev)}
			outs, _, err := hccrt.Run(context.Background(), c, be, cts, hccrt.Options{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			want := c.EvalBits(in)
			for i, o := range outs {
				if got := de.Decrypt(o.(*Ciphertext)).Bit(0); uint64(got) != want[i]&1 {
					t.Fatalf("circuit %d: output bit %d = %d, want %d", ci, i, got, want[i]&1)
				}
			}
			var run, scratch int64
			for _, ct := range be.cts {
				run += ctBytes(ct)
			}
			for _, w := range be.workers {
				scratch += scratchBytes(w)
			}
			held := inputBytes + run // KeepInputs: the inputs stay for the whole run
			// Above what was held, by at most a quarter plus the
			// allowance for threads beyond the first (at most the top level).
			slack := int64(runAhead*(threads-1)) * 2 * int64(pr.MaxLevel()+1) * int64(pr.N()) * 8
			if est.Ciphertexts < held || float64(est.Ciphertexts) > 1.25*float64(held)+float64(slack) {
				t.Errorf("circuit %d (%d nodes), %d threads: ciphertexts estimated %d, held %d (inputs %d, run %d)",
					ci, len(c.Nodes), threads, est.Ciphertexts, held, inputBytes, run)
			}
			if est.Scratch < scratch || float64(est.Scratch) > 1.5*float64(scratch) {
				t.Errorf("circuit %d, %d threads: scratch estimated %d, held %d", ci, threads, est.Scratch, scratch)
			}
			if threads == 1 {
				// The replay is the run: exact up to the kernels' first writes.
				st, err := pr.nodeStates(c, pr.freshInputs(c, level), false)
				if err != nil {
					t.Fatal(err)
				}
				alloc, _, _ := pr.replaySchedule(c, st, level, true, func(r int) int64 { return 2 * int64(r) * int64(pr.N()) * 8 })
				if alloc < run || float64(alloc) > 1.25*float64(run) {
					t.Errorf("circuit %d: replay allocates %d bytes, the run %d", ci, alloc, run)
				}
			}
		}
	}
	c := memoryCircuits(t, pr, 1)[0]
	est, err := pr.EstimateMemory(c, pr.MaxLevel(), MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := keyBytes(relin); est.Keys != got {
		t.Errorf("keys estimated %d, the relinearization key has %d", est.Keys, got)
	}
	client, err := pr.EstimateMemory(c, pr.MaxLevel(), MemoryOptions{Client: true})
	if err != nil {
		t.Fatal(err)
	}
	if sk := polyBytes(sk.S) + polyBytes(sk.qp) + polyBytes(pk.B) + polyBytes(pk.A); client.Keys-est.Keys < sk {
		t.Errorf("client keys estimated %d, secret and public key have %d", client.Keys-est.Keys, sk)
	}
}

// TestEstimateMemoryThreads checks the allowance for threads running ahead
// of node order: on many circuits, repeated, a run on 2 or 4 threads never
// holds more ciphertext memory than estimated.
func TestEstimateMemoryThreads(t *testing.T) {
	pr := testParams(t, ToyM257DeepLiteral)
	kg := NewKeyGenerator(pr, NewSamplerFromSeed([32]byte{67}))
	sk := kg.GenSecretKey()
	ev := NewEvaluator(pr, NewEvaluationKeySet(kg.GenRelinKey(sk)))
	en := NewSymmetricEncryptor(pr, sk, NewSamplerFromSeed([32]byte{68}))
	for ci, c := range memoryCircuits(t, pr, 20) {
		for rep := 0; rep < 3; rep++ {
			for _, threads := range []int{2, 4} {
				level, cts, held := encryptFor(t, pr, en, c, nil)
				est, err := pr.EstimateMemory(c, level, MemoryOptions{Threads: threads, KeepInputs: true})
				if err != nil {
					t.Fatal(err)
				}
				be := &recordingBackend{Backend: NewBackend(ev)}
				if _, _, err := hccrt.Run(context.Background(), c, be, cts, hccrt.Options{Threads: threads}); err != nil {
					t.Fatal(err)
				}
				for _, ct := range be.cts {
					held += ctBytes(ct)
				}
				if held > est.Ciphertexts {
					t.Errorf("circuit %d, %d threads: held %d bytes of ciphertexts, estimated %d", ci, threads, held, est.Ciphertexts)
				}
			}
		}
	}
}

// TestEstimateMemoryReleasesInputs checks that without KeepInputs the
// inputs stop counting after their last reader: an XOR tree of 64 inputs
// holds far less at its peak than its inputs take together.
func TestEstimateMemoryReleasesInputs(t *testing.T) {
	pr := testParams(t, ToyM257Literal)
	b := ir.NewBuilder("xortree")
	x := b.Input("x", 64, false)
	acc := x[0]
	for _, v := range x[1:] {
		acc = b.Xor(acc, v)
	}
	b.Output("y", 1, false, []ir.NodeID{acc})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	keep, err := pr.EstimateMemory(c, pr.MaxLevel(), MemoryOptions{KeepInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	release, err := pr.EstimateMemory(c, pr.MaxLevel(), MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ct := release.Ciphertext
	if keep.Ciphertexts != 66*ct || release.Ciphertexts != 65*ct {
		// Kept: 64 inputs and two partial sums (a result is taken before
		// its operands are released; from the third XOR on, the free list
		// has one). Released: the peak is at the first XOR, 64 inputs and
		// its result, after which the inputs go as the chain reads them.
		t.Errorf("kept %d, released %d bytes of ciphertexts; one is %d", keep.Ciphertexts, release.Ciphertexts, ct)
	}
	if s := release.String(); !strings.HasPrefix(s, "about ") || !strings.Contains(s, "65 ciphertexts at once") {
		t.Errorf("String() = %q", s)
	}
	if _, err := pr.EstimateMemory(c, pr.MaxLevel()+1, MemoryOptions{}); err == nil {
		t.Error("a level above the chain was accepted")
	}
}

// TestEstimateMemoryM65537 prices what the issue reports: a circuit of
// 1536 input bits at m = 65537 needs tens of GB, above any laptop, and the
// estimate says so before a key exists (parameters only, no keys).
func TestEstimateMemoryM65537(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the M65537 parameters (a few seconds)")
	}
	pr := testParams(t, M65537Literal)
	b := ir.NewBuilder("wide")
	x := b.Input("x", 1536, false)
	out := make([]ir.NodeID, 128)
	for i := range out {
		out[i] = b.And(x[i], x[i+128])
		for j := 2; j < 12; j++ {
			out[i] = b.Xor(out[i], x[i+128*j])
		}
	}
	b.Output("y", 128, false, out)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	est, err := pr.EstimateMemory(c, pr.MaxLevel(), MemoryOptions{Threads: 2, KeepInputs: true, Client: true})
	if err != nil {
		t.Fatal(err)
	}
	if est.Ciphertext < 20e6 || est.Total < 1536*est.Ciphertext {
		t.Errorf("M65537: %v, one ciphertext %d bytes", est, est.Ciphertext)
	}
	t.Logf("1536 input bits at M65537, top level: %v", est)
}
