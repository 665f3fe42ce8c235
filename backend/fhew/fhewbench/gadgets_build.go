package fhewbench

import (
	"crypto/rand"
	"fmt"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// The gadgets of MeasureGadgets: keys, inputs and the timed and checking
// closures of each row.

// Gadget names (the first column of the table).
const (
	GadgetNAND     = "NAND (gate bootstrap)"
	GadgetCBS      = "circuit bootstrap (cbs CBS)"
	GadgetTable    = "8-input 8-output table (cbs EvalTable)"
	GadgetSelect   = "shared select (fhew Select)"
	GadgetCMux     = "CMux on a select (fhew CMux)"
	GadgetMultiOne = "multi-output bootstrap, 1 output"
	GadgetMultiOut = "multi-output bootstrap, 4 outputs"
)

// tableInputs is the table's input count (the AES S-box's shape).
const tableInputs = 8

type gadgetBuilder struct {
	opt  GadgetOptions
	keys map[string]measuredKeys
}

// keysFor generates (once per set name) fhew keys.
func (b *gadgetBuilder) keysFor(p fhew.Params) (measuredKeys, error) {
	if k, ok := b.keys[p.Name()]; ok {
		return k, nil
	}
	b.opt.progressf("keygen "+p.Name(), 0, 1)
	k, err := genMeasuredKeys(p)
	if err != nil {
		return k, err
	}
	b.opt.progressf("keygen "+p.Name(), 1, 1)
	b.keys[p.Name()] = k
	return k, nil
}

func (b *gadgetBuilder) build() ([]*gadget, error) {
	var gs []*gadget
	ref, err := b.nand(b.opt.Reference)
	if err != nil {
		return nil, err
	}
	ref.row.Gadget = "reference " + GadgetNAND
	ref.row.OpsPerRound = 2
	closing, err := b.nand(b.opt.Reference)
	if err != nil {
		return nil, err
	}
	closing.row = ref.row
	gs = append(gs, ref)
	for _, p := range b.opt.NANDSets {
		g, err := b.nand(p)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	if b.opt.CBS != nil {
		g, err := b.cbsGadgets(*b.opt.CBS)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g...)
	}
	if b.opt.CMux != nil {
		g, err := b.cmuxGadgets(*b.opt.CMux)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g...)
	}
	if b.opt.MultiOutput {
		g, err := b.multiOutput(b.opt.Reference)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g...)
	}
	return append(gs, closing), nil
}

// randomBit draws one bit from crypto/rand.
func randomBit() int {
	var r [1]byte
	rand.Read(r[:])
	return int(r[0] & 1)
}

// nand is one NAND per round on fresh random inputs from a pool.
func (b *gadgetBuilder) nand(p fhew.Params) (*gadget, error) {
	k, err := b.keysFor(p)
	if err != nil {
		return nil, err
	}
	enc, err := fhew.NewEncryptor(k.sk)
	if err != nil {
		return nil, err
	}
	pool := newInputPool(enc, b.opt.Rounds)
	sc, out := fhew.NewScratch(p), fhew.NewCiphertext(p)
	k.ev.NAND(pool.x[0], pool.y[0], out, sc) // warm-up
	g := &gadget{row: &GadgetRow{Gadget: GadgetNAND, Set: p.Name(), OpsPerRound: 1}}
	g.run = func(i int) error {
		x, y, _ := pool.get(i)
		k.ev.NAND(x, y, out, sc)
		return nil
	}
	g.check = func(i int) (int, int, error) {
		_, _, want := pool.get(i)
		got, err := k.sk.Decrypt(out)
		if err != nil {
			return 0, 0, err
		}
		return 1, boolInt(got != want), nil
	}
	return g, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cbsGadgets: each round re-encrypts input j = round mod 8 with a fresh
// random bit, circuit-bootstraps it (timed) into RGSW j and evaluates a
// random 8-input, 8-output table on the 8 RGSWs (timed), whose outputs are
// checked against the table at the current input bits (which checks the
// round's CBS too).
func (b *gadgetBuilder) cbsGadgets(p cbs.Params) ([]*gadget, error) {
	b.opt.progressf("keygen "+p.Name(), 0, 1)
	sk, err := cbs.NewSecretKey(p)
	if err != nil {
		return nil, err
	}
	ek, err := cbs.GenEvaluationKey(sk)
	if err != nil {
		return nil, err
	}
	ev, err := cbs.NewEvaluator(ek)
	if err != nil {
		return nil, err
	}
	enc, err := cbs.NewEncryptor(sk)
	if err != nil {
		return nil, err
	}
	b.opt.progressf("keygen "+p.Name(), 1, 1)
	sc := cbs.NewScratch(p)
	in := cbs.NewWideBit(p)
	bits := make([]bool, tableInputs)
	rg := make([]*cbs.RGSW, tableInputs)
	outs := make([]*cbs.WideBit, tableInputs)
	words := (1<<tableInputs + 63) / 64
	tables := make([][]uint64, tableInputs)
	var seed [8]byte
	for t := range tables {
		tables[t] = make([]uint64, words)
		for w := range tables[t] {
			rand.Read(seed[:])
			for j, c := range seed {
				tables[t][w] |= uint64(c) << (8 * j)
			}
		}
		outs[t] = cbs.NewWideBit(p)
	}
	fresh := func(j int) error {
		bits[j] = randomBit() == 1
		return enc.Encrypt(bits[j], in)
	}
	for j := range rg { // set-up: every input once (untimed)
		rg[j] = ev.NewRGSW()
		if err := fresh(j); err != nil {
			return nil, err
		}
		if err := ev.CBS(in, rg[j], sc); err != nil {
			return nil, err
		}
	}
	boot := &gadget{row: &GadgetRow{Gadget: GadgetCBS, Set: p.Name(), OpsPerRound: 1}}
	boot.prepare = func(i int) error { return fresh(i % tableInputs) }
	boot.run = func(i int) error { return ev.CBS(in, rg[i%tableInputs], sc) }
	tab := &gadget{row: &GadgetRow{Gadget: GadgetTable, Set: p.Name(), OpsPerRound: 1}}
	tab.run = func(int) error { return ev.EvalTable(rg, tables, outs, sc) }
	tab.check = func(int) (int, int, error) {
		x := 0
		for j, bit := range bits {
			if bit {
				x |= 1 << j
			}
		}
		wrong := 0
		for t, o := range outs {
			got, err := sk.Decrypt(o)
			if err != nil {
				return 0, 0, err
			}
			wrong += boolInt(got != (tables[t][x/64]>>(x%64)&1 == 1))
		}
		// The table's outputs also check the round's CBS.
		boot.row.Checked++
		if wrong > 0 {
			boot.row.Wrong++
		}
		return len(outs), wrong, nil
	}
	return []*gadget{boot, tab}, nil
}

// cmuxGadgets: each round selects (timed) a fresh random bit and runs
// CMuxesPerRound CMuxes (timed together) on it with random data bits, every
// output checked.
func (b *gadgetBuilder) cmuxGadgets(p fhew.Params) ([]*gadget, error) {
	k, err := b.keysFor(p)
	if err != nil {
		return nil, err
	}
	enc, err := fhew.NewEncryptor(k.sk)
	if err != nil {
		return nil, err
	}
	sc := fhew.NewScratch(p)
	sel := k.ev.NewSelector()
	selPool := newInputPool(enc, b.opt.Rounds) // x: the select, nand unused
	data := newInputPool(enc, CMuxesPerRound*b.opt.Rounds)
	outs := make([]*fhew.Ciphertext, CMuxesPerRound)
	for j := range outs {
		outs[j] = fhew.NewCiphertext(p)
	}
	selBit := func(i int) (*fhew.Ciphertext, int, error) {
		x, _, _ := selPool.get(i)
		v, err := k.sk.Decrypt(x)
		return x, v, err
	}
	s := &gadget{row: &GadgetRow{Gadget: GadgetSelect, Set: p.Name(), OpsPerRound: 1}}
	s.run = func(i int) error {
		x, _, _ := selPool.get(i)
		return k.ev.Select(x, sel, sc)
	}
	m := &gadget{row: &GadgetRow{Gadget: GadgetCMux, Set: p.Name(), OpsPerRound: CMuxesPerRound}}
	m.run = func(i int) error {
		for j, o := range outs {
			a, c, _ := data.get(i*CMuxesPerRound + j)
			if err := k.ev.CMux(sel, a, c, o, sc); err != nil {
				return err
			}
		}
		return nil
	}
	m.check = func(i int) (int, int, error) {
		_, v, err := selBit(i)
		if err != nil {
			return 0, 0, err
		}
		wrong, differ, wrongDiffer := 0, 0, 0
		for j, o := range outs {
			a, c, _ := data.get(i*CMuxesPerRound + j)
			va, err := k.sk.Decrypt(a)
			if err != nil {
				return 0, 0, err
			}
			vc, err := k.sk.Decrypt(c)
			if err != nil {
				return 0, 0, err
			}
			want := vc
			if v == 1 {
				want = va
			}
			got, err := k.sk.Decrypt(o)
			if err != nil {
				return 0, 0, err
			}
			bad := boolInt(got != want)
			wrong += bad
			if va != vc {
				differ++
				wrongDiffer += bad
			}
		}
		// The CMuxes on differing data bits also check the round's select:
		// a wrong select makes every one of them wrong.
		if differ > 0 {
			s.row.Checked++
			s.row.Wrong += boolInt(wrongDiffer == differ)
		}
		return len(outs), wrong, nil
	}
	return []*gadget{s, m}, nil
}

// Multi-output tables on two inputs: AND, OR, NAND, NOR (bit i = f(i),
// symmetric, so the index order does not matter); one blind rotation
// evaluates all four at P = 4 and 8.
var (
	multiOne  = []uint64{0b1000}
	multiFour = []uint64{0b1000, 0b1110, 0b0111, 0b0001}
)

// multiOutput times a 1-output and a 4-output multi-output bootstrap on
// the same inputs, twice each per round (the 1-output one is a row too: it
// is what the extra outputs are measured against).
func (b *gadgetBuilder) multiOutput(p fhew.Params) ([]*gadget, error) {
	k, err := b.keysFor(p)
	if err != nil {
		return nil, err
	}
	if _, ok := p.CanEvalMultiLUT(multiFour, 2); !ok {
		return nil, fmt.Errorf("fhewbench: %s cannot evaluate AND, OR, NAND, NOR in one bootstrap", p.Name())
	}
	enc, err := fhew.NewEncryptor(k.sk)
	if err != nil {
		return nil, err
	}
	pool := newInputPool(enc, b.opt.Rounds)
	sc := fhew.NewScratch(p)
	outs := make([]*fhew.Ciphertext, len(multiFour))
	for j := range outs {
		outs[j] = fhew.NewCiphertext(p)
	}
	mk := func(name string, tables []uint64) *gadget {
		g := &gadget{row: &GadgetRow{Gadget: name, Set: p.Name(), OpsPerRound: 1}}
		in := make([]*fhew.Ciphertext, 2) // outside the timed region
		g.prepare = func(i int) error {
			in[0], in[1], _ = pool.get(i)
			return nil
		}
		g.run = func(int) error { return k.ev.EvalMultiLUT(tables, in, outs[:len(tables)], sc) }
		g.check = func(i int) (int, int, error) {
			x, y, _ := pool.get(i)
			a, err := k.sk.Decrypt(x)
			if err != nil {
				return 0, 0, err
			}
			c, err := k.sk.Decrypt(y)
			if err != nil {
				return 0, 0, err
			}
			wrong := 0
			for t, tab := range tables {
				got, err := k.sk.Decrypt(outs[t])
				if err != nil {
					return 0, 0, err
				}
				wrong += boolInt(uint64(got) != tab>>(a+2*c)&1)
			}
			return len(tables), wrong, nil
		}
		return g
	}
	one, four := mk(GadgetMultiOne, multiOne), mk(GadgetMultiOut, multiFour)
	one2, four2 := mk("", multiOne), mk("", multiFour)
	one2.row, four2.row = one.row, four.row
	one.row.OpsPerRound, four.row.OpsPerRound = 2, 2
	// A B B A: a drift of the load within the round hits both alike.
	return []*gadget{one, four, four2, one2}, nil
}
