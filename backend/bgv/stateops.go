package bgv

import "fmt"

// Exported noise and level rules of single operations, for programs that
// drive the Evaluator directly (not through a circuit) and want the same
// pre-run check that Simulate gives circuits: run the program once on
// NoiseStates with these rules, once on ciphertexts with the kernels. Each
// rule is the one the kernel applies (sim.go, noise.go), so a program that
// passes on states passes, with the same levels, on ciphertexts of those
// states.

// MulState is the state of Evaluator.Mul(a, b) (square: a and b are the
// same ciphertext); the error wraps ErrNoiseBudget if the product would
// be refused.
func (pr *Params) MulState(a, b NoiseState, square bool) (NoiseState, error) {
	return pr.mulState(a, b, square)
}

// AddState is the state of Evaluator.Add(a, b).
func (pr *Params) AddState(a, b NoiseState) NoiseState { return pr.addState(a, b) }

// AutomorphismState is the state of Evaluator.Automorphism (and Frobenius,
// Rotate, AutomorphismHoisted) applied to a: same level, plus key switching's
// noise. The identity (t = 1) leaves a unchanged.
func (pr *Params) AutomorphismState(a NoiseState) NoiseState {
	return NoiseState{Level: a.Level, Noise: pr.keySwitchNoise(a.Noise, a.Level)}
}

// MulConstState is the state of Evaluator.MulConst(a, c); the error wraps
// ErrNoiseBudget if no level makes the product decrypt.
func (pr *Params) MulConstState(a NoiseState, c *ConstPlaintext) (NoiseState, error) {
	t, noise, ok := pr.constPlan(a.Noise, a.Level, func(x NoiseEstimate, _ int) NoiseEstimate { return mulConstNoise(x, c) })
	st := NoiseState{Level: t, Noise: noise}
	if !ok {
		return st, errNoise("bgv mul const", pr, st)
	}
	return st, nil
}

// AddConstState is the state of Evaluator.AddConst(a, c).
func (pr *Params) AddConstState(a NoiseState, c *ConstPlaintext) NoiseState {
	return NoiseState{Level: a.Level, Noise: addConstNoise(a.Noise, c)}
}

// DropState is the state of Evaluator.SwitchToLevel(a, t) (t <= a.Level).
func (pr *Params) DropState(a NoiseState, t int) NoiseState {
	for a.Level > t {
		a.Noise, a.Level = pr.dropNoise(a.Noise, a.Level), a.Level-1
	}
	return a
}

// Decrypts reports whether a ciphertext of state s decrypts by the
// estimate, with the margin products are refused at (bound two bits below
// log2 Q_t).
func (pr *Params) Decrypts(s NoiseState) bool { return pr.decrypts(s) }

// BoundBits returns log2 of the estimated coefficient bound of state s and
// log2 Q at its level (bound < logQ - 2 decrypts).
func (pr *Params) BoundBits(s NoiseState) (bound, logQ float64) {
	return pr.boundOf(s.Noise), pr.logQ(s.Level)
}

func errNoise(op string, pr *Params, st NoiseState) error {
	return fmt.Errorf("%s: noise 2^%.1f at level %d (log2 Q = %.1f): %w",
		op, pr.boundOf(st.Noise), st.Level, pr.logQ(st.Level), ErrNoiseBudget)
}

// CheckKeys returns nil if ev holds the relinearization key (when relin)
// and the automorphism keys of elems (the identity needs none), else an
// error naming the first missing key: for programs that want to refuse up
// front rather than at the first operation that needs it.
func (ev *Evaluator) CheckKeys(relin bool, elems ...uint64) error {
	if relin && (ev.keys == nil || ev.keys.Relin == nil) {
		return fmt.Errorf("bgv: no relinearization key")
	}
	for _, u := range elems {
		u %= uint64(ev.params.m)
		if u == 1 {
			continue
		}
		if ev.keys == nil {
			return fmt.Errorf("bgv: no key for κ_%d", u)
		}
		if _, ok := ev.keys.AutoKey(u); !ok {
			return fmt.Errorf("bgv: no key for κ_%d", u)
		}
	}
	return nil
}
