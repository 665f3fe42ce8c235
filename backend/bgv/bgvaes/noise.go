package bgvaes

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend/bgv"
)

// noiseArith is the budget engine: it runs the program on noise states
// with the Evaluator's own rules (bgv's exported state rules), so it
// predicts the ciphertext run's levels and refusals exactly, without any
// ciphertext arithmetic (milliseconds for a whole AES).
type noiseArith struct {
	a *AES
}

func (n *noiseArith) check(op string, s bgv.NoiseState) (bgv.NoiseState, error) {
	if !n.a.pr.Decrypts(s) {
		b, q := n.a.pr.BoundBits(s)
		return s, fmt.Errorf("%s: noise 2^%.1f at level %d (log2 Q = %.1f): %w", op, b, s.Level, q, bgv.ErrNoiseBudget)
	}
	return s, nil
}

func (n *noiseArith) add(a, b bgv.NoiseState) (bgv.NoiseState, error) {
	return n.check("add", n.a.pr.AddState(a, b))
}

func (n *noiseArith) addConst(a bgv.NoiseState, c byte) (bgv.NoiseState, error) {
	k, err := n.a.constant(c)
	if err != nil {
		return a, err
	}
	return n.check("add constant", n.a.pr.AddPlainConstState(a, k))
}

func (n *noiseArith) addVec(a bgv.NoiseState, v *slotConst) (bgv.NoiseState, error) {
	return n.check("add public value", n.a.pr.AddPlainConstState(a, v.pc.(*bgv.PlainConst)))
}

func (n *noiseArith) mul(a, b bgv.NoiseState) (bgv.NoiseState, error) {
	return n.a.pr.MulState(a, b, false)
}

func (n *noiseArith) frob(a bgv.NoiseState, _ int) (bgv.NoiseState, error) {
	return n.a.pr.AutomorphismState(a), nil
}

func (n *noiseArith) lin(a bgv.NoiseState, m *linMap) ([]bgv.NoiseState, error) {
	lm, err := n.a.linear(m)
	if err != nil {
		return nil, err
	}
	_, outs, err := n.a.pr.LinearMapsPlan(a, lm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
	return outs, nil
}

func (n *noiseArith) free(bgv.NoiseState) {}

// Direction selects encryption or decryption (the inverse cipher).
type Direction int

// The two directions.
const (
	Encrypt Direction = iota
	Decrypt
)

// String returns "encryption" or "decryption".
func (d Direction) String() string {
	if d == Decrypt {
		return "decryption"
	}
	return "encryption"
}

// Budget is the noise model's account of one AES run: the levels the state
// reaches round by round and the margin left at the end.
type Budget struct {
	Direction Direction
	Expand    bool // key expansion homomorphic (else round keys supplied)
	// InputLevel is the data's (highest) level.
	InputLevel int
	// Rounds[r] is the lowest level of the state after round r (round 0:
	// the initial AddRoundKey; for decryption the rounds count down from
	// 10, as the round keys are used).
	Rounds [11]int
	// MarginBits is the smallest log2 Q - 2 - bound over the output bytes:
	// the bits of modulus left unused.
	MarginBits float64
	// OutputLevel is the lowest level of an output byte.
	OutputLevel int
}

// LevelsPerRound returns the levels the state loses per round on average
// after the first AddRoundKey.
func (b *Budget) LevelsPerRound() float64 {
	start, end := b.Rounds[0], b.Rounds[10]
	if b.Direction == Decrypt {
		start, end = b.Rounds[10], b.Rounds[0]
	}
	return float64(start-end) / 10
}

// String summarises the budget in one line.
func (b *Budget) String() string {
	keys := "supplied round keys"
	if b.Expand {
		keys = "key expansion"
	}
	return fmt.Sprintf("AES-128 %s with %s: input level %d, levels after each round %v, output level %d, margin %.1f bits",
		b.Direction, keys, b.InputLevel, b.Rounds, b.OutputLevel, b.MarginBits)
}

// Plan runs the noise model over AES in the given direction on inputs of
// the given states: data (16 bytes) and either the key (16, expand: for
// decryption the last round key, see Evaluator.Decrypt) or the 11 round
// keys (176, round key r at [16r, 16r+16)). It returns the
// budget, or an error wrapping bgv.ErrNoiseBudget that says at which round
// the chain runs out.
func (a *AES) Plan(dir Direction, expand bool, data, keys []bgv.NoiseState) (*Budget, error) {
	if len(data) != 16 {
		return nil, fmt.Errorf("bgvaes plan: %d data states, want 16", len(data))
	}
	want := 176
	if expand {
		want = 16
	}
	if len(keys) != want {
		return nil, fmt.Errorf("bgvaes plan: %d key states, want %d", len(keys), want)
	}
	b := &Budget{Direction: dir, Expand: expand}
	for _, s := range data {
		b.InputLevel = max(b.InputLevel, s.Level)
	}
	e := &engine[bgv.NoiseState]{ars: []arith[bgv.NoiseState]{&noiseArith{a: a}}}
	e.round = func(r int, s []bgv.NoiseState) {
		lv := s[0].Level
		for _, x := range s {
			lv = min(lv, x.Level)
		}
		b.Rounds[r] = lv
	}
	var d16 [16]bgv.NoiseState
	copy(d16[:], data)
	var rk roundKeys[bgv.NoiseState]
	var k16 [16]bgv.NoiseState
	if expand {
		copy(k16[:], keys)
		if dir == Encrypt {
			rk = expandingKeys(e, a.p, k16)
		} else {
			rk = expandingKeysDown(e, a.p, k16)
		}
	} else {
		var rks [11][16]bgv.NoiseState
		for r := range rks {
			copy(rks[r][:], keys[16*r:])
		}
		rk = suppliedKeys(e, rks)
	}
	run := encrypt[bgv.NoiseState]
	if dir == Decrypt {
		run = decrypt[bgv.NoiseState]
	}
	out, err := run(e, a.p, d16, rk)
	if err != nil {
		return nil, fmt.Errorf("bgvaes: AES-128 %s on %s (%d primes, inputs at level %d) runs out of noise budget: %w",
			dir, a.pr.Name(), a.pr.MaxLevel()+1, b.InputLevel, err)
	}
	b.OutputLevel = out[0].Level
	b.MarginBits = 1e9
	for _, s := range out {
		bound, q := a.pr.BoundBits(s)
		b.OutputLevel = min(b.OutputLevel, s.Level)
		b.MarginBits = min(b.MarginBits, q-2-bound)
	}
	return b, nil
}

// fresh returns n fresh states at level t.
func (a *AES) fresh(n, t int) []bgv.NoiseState {
	out := make([]bgv.NoiseState, n)
	for i := range out {
		out[i] = a.pr.FreshState(t)
	}
	return out
}

// InputLevel returns the lowest level at which fresh (secret-key)
// encryptions of the data and the key (or round keys) run AES to the end
// by the noise model, with its budget; an error if even the top level
// does not. Inputs encrypted there make every operation cheaper.
func (a *AES) InputLevel(dir Direction, expand bool) (int, *Budget, error) {
	nk := 176
	if expand {
		nk = 16
	}
	top := a.pr.MaxLevel()
	if _, err := a.Plan(dir, expand, a.fresh(16, top), a.fresh(nk, top)); err != nil {
		return 0, nil, err
	}
	for t := 0; t <= top; t++ {
		if b, err := a.Plan(dir, expand, a.fresh(16, t), a.fresh(nk, t)); err == nil {
			return t, b, nil
		}
	}
	return 0, nil, fmt.Errorf("bgvaes: internal error: top level passes but no level does")
}
