package bgvaes

import (
	"fmt"
	"sync"

	"github.com/hcc-fhe/hcc/backend/bgv"
)

// ctPool recycles ciphertexts: a value keeps its rows (sized for the
// highest level it held), so a run allocates its working set once.
type ctPool struct {
	pr   *bgv.Params
	mu   sync.Mutex
	free []*bgv.Ciphertext
}

func (p *ctPool) get() *bgv.Ciphertext {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		ct := p.free[n-1]
		p.free = p.free[:n-1]
		return ct
	}
	return p.pr.NewCiphertext()
}

func (p *ctPool) put(ct *bgv.Ciphertext) {
	p.mu.Lock()
	p.free = append(p.free, ct)
	p.mu.Unlock()
}

// cipherArith is the ciphertext engine of one goroutine: its own scratch
// and hoisting buffer, the shared pool.
type cipherArith struct {
	a    *AES
	ev   *bgv.Evaluator
	sc   *bgv.Scratch
	h    *bgv.Hoisted
	pool *ctPool
}

func (c *cipherArith) add(x, y *bgv.Ciphertext) (*bgv.Ciphertext, error) {
	out := c.pool.get()
	return out, c.ev.Add(x, y, out, c.sc)
}

func (c *cipherArith) addConst(x *bgv.Ciphertext, b byte) (*bgv.Ciphertext, error) {
	k, err := c.a.constant(b)
	if err != nil {
		return nil, err
	}
	out := c.pool.get()
	return out, c.ev.AddPlainConst(x, k, out, c.sc)
}

func (c *cipherArith) addVec(x *bgv.Ciphertext, v *slotConst) (*bgv.Ciphertext, error) {
	out := c.pool.get()
	return out, c.ev.AddPlainConst(x, v.pc.(*bgv.PlainConst), out, c.sc)
}

func (c *cipherArith) mul(x, y *bgv.Ciphertext) (*bgv.Ciphertext, error) {
	out := c.pool.get()
	return out, c.ev.Mul(x, y, out, c.sc)
}

func (c *cipherArith) frob(x *bgv.Ciphertext, j int) (*bgv.Ciphertext, error) {
	out := c.pool.get()
	return out, c.ev.Frobenius(x, j, out, c.sc)
}

func (c *cipherArith) lin(x *bgv.Ciphertext, m *linMap) ([]*bgv.Ciphertext, error) {
	lm, err := c.a.linear(m)
	if err != nil {
		return nil, err
	}
	t, _, err := c.a.pr.LinearMapsPlan(x.State(), lm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
	if err := c.ev.Hoist(x, t, c.h, c.sc); err != nil {
		return nil, err
	}
	outs := make([]*bgv.Ciphertext, lm.Maps())
	for k := range outs {
		outs[k] = c.pool.get()
	}
	return outs, c.ev.ApplyLinearMaps(c.h, lm, outs, c.sc)
}

func (c *cipherArith) free(x *bgv.Ciphertext) {
	if x != nil {
		c.pool.put(x)
	}
}

// Evaluator runs byte-sliced AES on ciphertexts. Each of its workers owns
// a bgv.Scratch and a hoisting buffer (about 160 MB at m = 65537); the
// S-boxes of a layer run on the workers in parallel. Not safe for
// concurrent use (one run at a time).
type Evaluator struct {
	a    *AES
	ev   *bgv.Evaluator
	e    engine[*bgv.Ciphertext]
	pool *ctPool
}

// NewEvaluator returns an evaluator over ev (which must hold the
// relinearization key and the keys of AES.GaloisElements) with the given
// number of worker goroutines (at least 1).
func (a *AES) NewEvaluator(ev *bgv.Evaluator, workers int) (*Evaluator, error) {
	if ev.Params() != a.pr {
		return nil, fmt.Errorf("bgvaes: evaluator for %s, AES for %s", ev.Params().Name(), a.pr.Name())
	}
	if err := ev.CheckKeys(true, a.GaloisElements()...); err != nil {
		return nil, fmt.Errorf("bgvaes: %w (AES needs the relinearization key and the keys of AES.GaloisElements)", err)
	}
	workers = max(1, workers)
	pool := &ctPool{pr: a.pr}
	e := &Evaluator{a: a, ev: ev, pool: pool}
	for range workers {
		e.e.ars = append(e.e.ars, &cipherArith{a: a, ev: ev, sc: ev.NewScratch(), h: a.pr.NewHoisted(), pool: pool})
	}
	return e, nil
}

// SetConsumeInputs makes later runs recycle their input ciphertexts (data,
// key or round keys) as soon as the program no longer needs them: at
// m = 65537 that is 32 ciphertexts of 20 MB returned to the working set
// after the first round. The caller must not use the inputs afterwards.
func (e *Evaluator) SetConsumeInputs(on bool) { e.e.consume = on }

// ReleaseWorkingSet drops the recycled ciphertexts kept between runs.
func (e *Evaluator) ReleaseWorkingSet() {
	e.pool.mu.Lock()
	e.pool.free = nil
	e.pool.mu.Unlock()
}

func states(cts []*bgv.Ciphertext) ([]bgv.NoiseState, error) {
	out := make([]bgv.NoiseState, len(cts))
	for i, ct := range cts {
		if ct == nil {
			return nil, fmt.Errorf("bgvaes: ciphertext %d is missing", i)
		}
		if ct.Degree() != 1 {
			return nil, fmt.Errorf("bgvaes: ciphertext %d has degree %d, want 1", i, ct.Degree())
		}
		out[i] = ct.State()
	}
	return out, nil
}

// run checks the budget on the inputs' states, then runs.
func (e *Evaluator) run(dir Direction, expand bool, data [16]*bgv.Ciphertext, keys []*bgv.Ciphertext) ([16]*bgv.Ciphertext, *Budget, error) {
	var out [16]*bgv.Ciphertext
	ds, err := states(data[:])
	if err != nil {
		return out, nil, err
	}
	ks, err := states(keys)
	if err != nil {
		return out, nil, err
	}
	b, err := e.a.Plan(dir, expand, ds, ks)
	if err != nil {
		return out, nil, err
	}
	var rk roundKeys[*bgv.Ciphertext]
	if expand {
		var k16 [16]*bgv.Ciphertext
		copy(k16[:], keys)
		if dir == Encrypt {
			rk = expandingKeys(&e.e, e.a.p, k16)
		} else {
			rk = expandingKeysDown(&e.e, e.a.p, k16)
		}
	} else {
		var rks [11][16]*bgv.Ciphertext
		for r := range rks {
			copy(rks[r][:], keys[16*r:])
		}
		rk = suppliedKeys(&e.e, rks)
	}
	run := encrypt[*bgv.Ciphertext]
	if dir == Decrypt {
		run = decrypt[*bgv.Ciphertext]
	}
	out, err = run(&e.e, e.a.p, data, rk)
	if err != nil {
		return out, nil, fmt.Errorf("bgvaes: AES-128 %s: %w", dir, err)
	}
	return out, b, nil
}

// Encrypt returns the byte-sliced AES-128 encryption of data under the
// encrypted key (16 ciphertexts, byte i in every slot of key[i]), with the
// key expansion done homomorphically. The noise budget is checked on the
// inputs' states before anything runs (AES.Plan). The inputs are not
// modified; the outputs are new ciphertexts.
func (e *Evaluator) Encrypt(data, key [16]*bgv.Ciphertext) ([16]*bgv.Ciphertext, *Budget, error) {
	return e.run(Encrypt, true, data, key[:])
}

// EncryptRoundKeys is Encrypt with the 11 round keys supplied (encrypted).
func (e *Evaluator) EncryptRoundKeys(data [16]*bgv.Ciphertext, rk [11][16]*bgv.Ciphertext) ([16]*bgv.Ciphertext, *Budget, error) {
	return e.run(Encrypt, false, data, flatten(rk))
}

// Decrypt is the inverse cipher with the key schedule run homomorphically
// backwards from the encrypted LAST round key (ExpandKey(key)[10], which
// the key owner computes in the clear, like the decryption key of AES
// hardware): round key r-1 follows from round key r with one S-box per
// word, in the order the rounds use them. Expanding forwards from the key
// would put round key 10 ten S-boxes deep before the first round, which
// M65537's chain cannot afford (Plan says so).
func (e *Evaluator) Decrypt(data, lastRoundKey [16]*bgv.Ciphertext) ([16]*bgv.Ciphertext, *Budget, error) {
	return e.run(Decrypt, true, data, lastRoundKey[:])
}

// DecryptRoundKeys is Decrypt with the 11 round keys supplied.
func (e *Evaluator) DecryptRoundKeys(data [16]*bgv.Ciphertext, rk [11][16]*bgv.Ciphertext) ([16]*bgv.Ciphertext, *Budget, error) {
	return e.run(Decrypt, false, data, flatten(rk))
}

func flatten(rk [11][16]*bgv.Ciphertext) []*bgv.Ciphertext {
	out := make([]*bgv.Ciphertext, 0, 176)
	for r := range rk {
		out = append(out, rk[r][:]...)
	}
	return out
}
