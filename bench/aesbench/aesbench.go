// Package aesbench measures AES-128 under homomorphic encryption three ways
// side by side, for hcc bench aes: byte-sliced BGV (package bgvaes: GF(2^8)
// slots, Frobenius S-box, one block per slot), bit-sliced BGV (the generic
// compiler on circuits/aes's aes128_lowdepth.hdl, one block per slot) and
// FHEW (aes128.hdl, one block per evaluation). Every row checks its blocks
// against crypto/aes, so a figure never comes from a wrong run. Rows report
// latency, blocks per evaluation, amortized time per block, peak resident
// memory, levels per round, and the client's upload per block with and
// without transciphering.
package aesbench

import (
	"context"
	"crypto/aes"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// The row designs.
const (
	ByteSliced = "byte" // bgvaes, BGV
	BitSliced  = "bit"  // aes128_lowdepth.hdl on BGV
	FHEW       = "fhew" // aes128.hdl on FHEW, one block
	CTR        = "ctr"  // hcc.Transcipher on BGV: AES-CTR records to slot bits
)

// DefaultRows are the designs run without Options.Rows.
var DefaultRows = []string{ByteSliced, BitSliced}

// DefaultRing is the BGV set of the quick default: the toy ring whose slots
// (GF(2^16)) hold GF(2^8), 16 slots, a deep chain (INSECURE: for comparing
// the designs' shapes quickly, never for security figures).
const DefaultRing = "ToyM257Deep"

// DefaultFHEWParams is the FHEW set of the quick default (insecure toy).
const DefaultFHEWParams = "ToySigned"

// Options choose what Run measures.
type Options struct {
	// Rows are designs (ByteSliced, BitSliced, FHEW, CTR); nil is DefaultRows.
	Rows []string
	// Ring is the BGV parameter set; "" is DefaultRing. M65537 is the
	// 128-bit set (the bit-sliced row then takes minutes and ~12.7 GB).
	Ring string
	// FHEWParams is the FHEW parameter set; "" is DefaultFHEWParams.
	FHEWParams string
	// Blocks bounds the blocks per BGV evaluation; 0 fills every slot.
	Blocks int
	// Threads is the number of workers; 0 is 1.
	Threads int
	// InputRGSW runs the fhew row twice, without and then with its inputs'
	// client-side input RGSWs (hcc.EncryptOptions.InputRGSW: the table
	// inputs reading only input bits are built without a circuit
	// bootstrap, AES-128 at STD128_CBS 1440 instead of 1600), so that one
	// report compares the two under the same load. Only the wide-table
	// sets have them, and only the fhew row uses them: Run refuses it
	// otherwise, before anything is measured.
	InputRGSW bool
	// Seed makes the keys' AES keys and blocks reproducible.
	Seed uint64
	// Log, if set, receives one line per step (key generation, runs).
	Log func(format string, args ...any)
}

// Row is one design's measurement.
type Row struct {
	Design string // ByteSliced, BitSliced or FHEW
	Name   string // a human description
	Params string // the parameter set
	Secure bool   // whether Params is a 128-bit set
	// Blocks is the number of blocks one evaluation encrypts.
	Blocks int
	// Latency is the wall time of one evaluation (keys and inputs ready).
	Latency time.Duration
	// PeakRSS is the highest resident set size sampled during the row
	// (keygen included), and BaseRSS the one before it, in bytes; 0 if
	// unknown (not Linux).
	PeakRSS, BaseRSS int64
	// LevelsPerRound is the BGV levels consumed per AES round (0 for FHEW):
	// measured from the noise model's budget for the byte-sliced row,
	// the input level / 10 for the bit-sliced one (its outputs end at level
	// 0 or just above).
	LevelsPerRound float64
	// UploadFHE is the client's upload per block without transciphering:
	// FHE ciphertexts of the 128 data bits, per block of an evaluation.
	UploadFHE float64
	// UploadKey is the one-time upload with transciphering (the AES key
	// under FHE); the per-block upload is then 16 bytes. 0 when the design
	// does not transcipher.
	UploadKey int64
	// Checked is the number of blocks compared with crypto/aes (all).
	Checked int
	// Costly is the evaluation's count of costly operations (hcc.Stats:
	// bootstraps, circuit bootstraps on a wide-table set, ...) and
	// CostName what they are; 0 and "" for the rows not run by hcc.Eval.
	Costly   int
	CostName string
	// EvalCPU is the CPU the process received during the evaluation
	// (hcc.Stats.CPU; 0 if unknown): on a shared machine a steadier
	// figure than Latency for comparing two rows.
	EvalCPU time.Duration
	// InputRGSW says the inputs carried client-side input RGSWs
	// (Options.InputRGSW on the fhew row).
	InputRGSW bool
	// Note says what else matters (the level the data enters at, ...).
	Note string
}

// PerBlock is the amortized time per block.
func (r *Row) PerBlock() time.Duration {
	if r.Blocks == 0 {
		return 0
	}
	return r.Latency / time.Duration(r.Blocks)
}

// Run measures the rows of o, one after the other (never two at once: the
// figures would share the cores). A row whose blocks disagree with
// crypto/aes is an error.
func Run(ctx context.Context, o Options) ([]Row, error) {
	if o.Ring == "" {
		o.Ring = DefaultRing
	}
	if o.FHEWParams == "" {
		o.FHEWParams = DefaultFHEWParams
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.Blocks < 0 {
		return nil, fmt.Errorf("blocks %d: want at least 0", o.Blocks)
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	rows := o.Rows
	if rows == nil {
		rows = DefaultRows
	}
	for _, d := range rows {
		switch d {
		case ByteSliced, BitSliced, FHEW, CTR:
		default:
			return nil, fmt.Errorf("unknown design %q (want %s, %s, %s or %s)", d, ByteSliced, BitSliced, FHEW, CTR)
		}
	}
	if err := CheckInputRGSW(o); err != nil {
		return nil, err
	}
	type step struct {
		design string
		rgsw   bool // the fhew row with input RGSWs
	}
	var steps []step
	for _, d := range rows {
		steps = append(steps, step{design: d})
		if d == FHEW && o.InputRGSW {
			steps = append(steps, step{design: d, rgsw: true})
		}
	}
	var out []Row
	for _, s := range steps {
		d := s.design
		if err := ctx.Err(); err != nil {
			return out, err
		}
		rng := rand.New(rand.NewPCG(o.Seed, uint64(len(out))))
		debug.FreeOSMemory() // the previous row's memory is not this row's
		mem := startRSS()
		var r Row
		var err error
		switch d {
		case ByteSliced:
			r, err = runByteSliced(o, rng)
		case BitSliced:
			r, err = runBitSliced(ctx, o, rng)
		case FHEW:
			r, err = runFHEW(ctx, o, rng, s.rgsw)
		case CTR:
			r, err = runCTR(ctx, o, rng)
		}
		r.BaseRSS, r.PeakRSS = mem.stop()
		if err != nil {
			if s.rgsw {
				return out, fmt.Errorf("%s row with input RGSWs: %w", d, err)
			}
			return out, fmt.Errorf("%s row: %w", d, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// CheckInputRGSW refuses o.InputRGSW where it would measure nothing (no
// fhew row) or fail only after the key generation (a set without input
// RGSWs). Run calls it first; hcc bench aes calls it before it times its
// reference NAND.
func CheckInputRGSW(o Options) error {
	if !o.InputRGSW {
		return nil
	}
	rows, set := o.Rows, o.FHEWParams
	if rows == nil {
		rows = DefaultRows
	}
	if set == "" {
		set = DefaultFHEWParams
	}
	if !slices.Contains(rows, FHEW) {
		return fmt.Errorf("input RGSWs apply to the %s row only: add %s to the rows (hcc bench aes --rows %s)", FHEW, FHEW, FHEW)
	}
	p, err := cbs.ParamsByName(set, true)
	if err != nil || cbs.InputRGSWSize(p) == 0 {
		return fmt.Errorf("FHEW set %s has no client-side input RGSWs: they need a wide-table set (%s, %s or %s); measure without them", set, cbs.STD128_CBS.Name, cbs.STD128_CBS_595.Name, cbs.ToyCBS.Name)
	}
	return nil
}

// randomBlocks returns n random 16-byte blocks.
func randomBlocks(rng *rand.Rand, n int) [][16]byte {
	out := make([][16]byte, n)
	for i := range out {
		for j := range out[i] {
			out[i][j] = byte(rng.Uint32())
		}
	}
	return out
}

// checkBlocks compares got with AES-128 under key of pts (crypto/aes).
func checkBlocks(key [16]byte, pts, got [][16]byte) error {
	if len(got) != len(pts) {
		return fmt.Errorf("%d blocks out, %d in", len(got), len(pts))
	}
	blk, err := aes.NewCipher(key[:])
	if err != nil {
		return err
	}
	for i := range pts {
		var want [16]byte
		blk.Encrypt(want[:], pts[i][:])
		if got[i] != want {
			return fmt.Errorf("block %d: %x, crypto/aes says %x", i, got[i], want)
		}
	}
	return nil
}

// rssSampler records the peak resident set size (sampled every 20 ms from
// /proc/self/statm) while a row runs.
type rssSampler struct {
	base, peak int64
	done       chan struct{}
	wg         sync.WaitGroup
	mu         sync.Mutex
}

func startRSS() *rssSampler {
	s := &rssSampler{done: make(chan struct{})}
	s.base = rss()
	s.peak = s.base
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				v := rss()
				s.mu.Lock()
				s.peak = max(s.peak, v)
				s.mu.Unlock()
			}
		}
	}()
	return s
}

func (s *rssSampler) stop() (base, peak int64) {
	close(s.done)
	s.wg.Wait()
	return s.base, max(s.peak, rss())
}

var pageSize = int64(os.Getpagesize())

// rss is the resident set size in bytes, 0 if unknown.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return n * pageSize
}
