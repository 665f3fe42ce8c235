package fhewbench

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// MeasureGadgets prices hcc's FHEW gadgets in NANDs of the default set:
// gate bootstraps of several sets, the circuit bootstrap and a
// vertical-packing table of package cbs, the shared-select CMux gadget and
// the multi-output bootstrap. Every round runs each gadget once (a few ops
// of the cheap ones) between two reference NANDs, so a change in load
// hits both alike; a gadget's ratio is the median over the rounds of its
// time over that round's reference NAND, the mean of the two (MedianRatio).
// (The first op of a round ran measurably slower in trials, 8 % at the
// 128-bit sets: caches cold after the previous round's checks; the
// bracket averages that out of the unit.) Every result is
// decrypted and checked outside the timed region.

// DefaultGadgetRounds is `hcc bench gadgets`'s default round count: one
// round at the 128-bit sets takes ~0.2-0.3 s at load 3-5 on 2 cores, key
// generation and set-up ~9 s, so the whole default run stays well under
// a minute.
const DefaultGadgetRounds = 40

// DefaultGadgetSets are the gate sets whose NAND MeasureGadgets times by
// default: the default set (also the reference, timed again as its own
// row: its ratio shows the noise of the method) and STD128_T, the gate
// set of STD128_T_CMUX.
var DefaultGadgetSets = []string{"STD128_LOWFAIL_T", "STD128_T"}

// CMuxesPerRound is the number of CMuxes timed per round (one is ~0.01
// NAND, below the clock's and the load's resolution on its own).
const CMuxesPerRound = 10

// GadgetOptions chooses what MeasureGadgets times.
type GadgetOptions struct {
	// Rounds is the number of timed rounds (at least 1).
	Rounds int
	// Reference is the set whose NAND is the unit (STD128_LOWFAIL_T).
	Reference fhew.Params
	// NANDSets are gate sets whose NAND is a row each.
	NANDSets []fhew.Params
	// CBS, if set, adds a circuit bootstrap and an 8-input, 8-output
	// vertical-packing table at that set.
	CBS *cbs.Params
	// CMux, if set (a set with HasCMux), adds Select and CMux.
	CMux *fhew.Params
	// MultiOutput adds a multi-output bootstrap with 1 and with 4 outputs
	// (2 inputs) at the reference set. The price of an output beyond the
	// first (one extraction, ~0.005 NAND by fhew's BenchmarkMultiLUTCost,
	// which times it alone) is below what the difference of the two can
	// resolve under load; the pair shows that 4 outputs cost one NAND.
	MultiOutput bool
	// Progress, if not nil, is told how far a stage ("keygen SET",
	// "rounds") is.
	Progress func(stage string, done, total int)
	// CPU, if not nil, returns the CPU time the process has received so
	// far (user + system); the result then says how much of one core the
	// timed rounds got. (This package may not import hcc's runtime, which
	// has it.)
	CPU func() (time.Duration, bool)
}

// GadgetRow is one gadget at one set.
type GadgetRow struct {
	// Gadget describes the operation, Set names the parameter set.
	Gadget, Set string
	// OpsPerRound is the number of operations timed together per round;
	// times are per operation.
	OpsPerRound int
	// TimesMs is one operation's time in each round, in ms.
	TimesMs []float64
	// MedianMs is the median of TimesMs.
	MedianMs float64
	// Ratio is the median over the rounds of the operation's time over the
	// round's reference NAND.
	Ratio float64
	// Checked counts decrypted results, Wrong those that were wrong.
	Checked, Wrong int
}

// GadgetResult is one MeasureGadgets run.
type GadgetResult struct {
	// Reference is the reference set's name, ReferenceMs its NAND per
	// round.
	Reference   string
	ReferenceMs []float64
	// Rows are the gadgets in measuring order, starting with the
	// reference NAND (the mean of the NANDs timed at the start and at the
	// end of each round; ratio 1 by definition).
	Rows []GadgetRow
	// Rounds is the number of rounds.
	Rounds int
	// KeyGenSec is the wall time of the key generation and set-up.
	KeyGenSec float64
	// RoundsSec is the wall time of the timed rounds (checks included),
	// RoundsCPUSec the CPU time the process received during them (valid
	// when CPUKnown).
	RoundsSec, RoundsCPUSec float64
	CPUKnown                bool
}

// gadget is one timed step of a round: prepare (untimed, e.g. a fresh
// encryption), run (timed), check (untimed: the number of results
// decrypted and of wrong ones). Several gadgets may share a row (the
// reference NAND at the start and the end of the round, the multi-output
// bootstraps in A B B A order); the row's OpsPerRound counts the
// operations of all of them, and its time per round is their sum over
// OpsPerRound.
type gadget struct {
	row     *GadgetRow
	prepare func(round int) error
	run     func(round int) error
	check   func(round int) (checked, wrong int, err error)
}

// MeasureGadgets generates fresh keys (crypto/rand) for every set of opt
// and times opt.Rounds interleaved rounds.
func MeasureGadgets(opt GadgetOptions) (*GadgetResult, error) {
	if opt.Rounds < 1 {
		return nil, fmt.Errorf("fhewbench: %d rounds (want at least 1)", opt.Rounds)
	}
	if opt.CMux != nil && !opt.CMux.HasCMux() {
		return nil, fmt.Errorf("fhewbench: %s has no CMux gadget (want a set such as STD128_T_CMUX)", opt.CMux.Name())
	}
	res := &GadgetResult{Reference: opt.Reference.Name(), Rounds: opt.Rounds}
	b := &gadgetBuilder{opt: opt, keys: map[string]measuredKeys{}}
	start := time.Now()
	gs, err := b.build()
	if err != nil {
		return nil, err
	}
	res.KeyGenSec = time.Since(start).Seconds()
	if err := runRounds(gs, opt, res); err != nil {
		return nil, err
	}
	return res, nil
}

// gadgetClock times the gadgets (a test replaces it to check the
// arithmetic on known durations).
var gadgetClock = time.Now

// runRounds times opt.Rounds rounds of gs (gs[0] is the reference NAND's
// row) and fills res's rows, medians and ratios.
func runRounds(gs []*gadget, opt GadgetOptions, res *GadgetResult) error {
	cpu0, cpuOK := cpuOf(opt)
	start := time.Now()
	var rows []*GadgetRow // distinct rows in order (a row may take several gadgets' times)
	for _, g := range gs {
		if g.row.TimesMs == nil {
			g.row.TimesMs = make([]float64, opt.Rounds)
			rows = append(rows, g.row)
		}
	}
	for i := 0; i < opt.Rounds; i++ {
		for _, g := range gs {
			if g.prepare != nil {
				if err := g.prepare(i); err != nil {
					return fmt.Errorf("fhewbench: %s at %s: %w", g.row.Gadget, g.row.Set, err)
				}
			}
			t0 := gadgetClock()
			err := g.run(i)
			d := gadgetClock().Sub(t0)
			if err != nil {
				return fmt.Errorf("fhewbench: %s at %s: %w", g.row.Gadget, g.row.Set, err)
			}
			g.row.TimesMs[i] += float64(d.Nanoseconds()) / 1e6 / float64(g.row.OpsPerRound)
			if g.check != nil {
				c, w, err := g.check(i)
				if err != nil {
					return fmt.Errorf("fhewbench: checking %s at %s: %w", g.row.Gadget, g.row.Set, err)
				}
				g.row.Checked += c
				g.row.Wrong += w
			}
		}
		opt.progressf("rounds", i+1, opt.Rounds)
	}
	res.RoundsSec = time.Since(start).Seconds()
	if cpu1, ok := cpuOf(opt); ok && cpuOK {
		res.RoundsCPUSec, res.CPUKnown = (cpu1 - cpu0).Seconds(), true
	}
	res.ReferenceMs = gs[0].row.TimesMs
	for _, r := range rows {
		res.Rows = append(res.Rows, *r)
	}
	for i := range res.Rows {
		r := &res.Rows[i]
		r.MedianMs = Median(r.TimesMs)
		r.Ratio = MedianRatio(r.TimesMs, res.ReferenceMs)
	}
	return nil
}

func (o GadgetOptions) progressf(stage string, done, total int) {
	if o.Progress != nil {
		o.Progress(stage, done, total)
	}
}

func cpuOf(o GadgetOptions) (time.Duration, bool) {
	if o.CPU == nil {
		return 0, false
	}
	return o.CPU()
}

// ReceivedCores is the CPU the timed rounds received over their wall time
// (1 = one full core; the rounds run on one goroutine, so less means other
// processes had the core part of the time); NaN when unknown.
func (r *GadgetResult) ReceivedCores() float64 {
	if !r.CPUKnown || r.RoundsSec <= 0 {
		return math.NaN()
	}
	return r.RoundsCPUSec / r.RoundsSec
}

// Wrong sums the wrong results over the rows.
func (r *GadgetResult) Wrong() int {
	n := 0
	for _, row := range r.Rows {
		n += row.Wrong
	}
	return n
}

// GadgetsCSVHeader is the header line WriteGadgetsCSV writes.
var GadgetsCSVHeader = []string{"gadget", "set", "ops_per_round", "rounds", "median_ms", "ratio_to_nand", "reference", "checked", "wrong"}

// WriteGadgetsCSV writes r's rows as CSV with a header line
// (GadgetsCSVHeader).
func WriteGadgetsCSV(w io.Writer, r *GadgetResult) error {
	if r == nil {
		return errors.New("fhewbench: no gadget result")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(GadgetsCSVHeader); err != nil {
		return err
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 5, 64) }
	for _, row := range r.Rows {
		rec := []string{row.Gadget, row.Set, strconv.Itoa(row.OpsPerRound), strconv.Itoa(len(row.TimesMs)),
			g(row.MedianMs), g(row.Ratio), r.Reference, strconv.Itoa(row.Checked), strconv.Itoa(row.Wrong)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
