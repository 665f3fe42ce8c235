package bgvaes

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// The AES program, written once over an arithmetic on slot vectors of K
// (arith) and run by three engines: plaintext K-vectors (plain.go, the
// reference the algebra is checked with), noise states (noise.go, the
// pre-run budget check) and ciphertexts (cipher.go). Every engine applies
// the same operations in the same order, so the noise engine predicts the
// ciphertext run's levels exactly.
//
// Byte-sliced layout: value i (i = 4·column + row, the AES state order)
// holds byte i of every block, one block per slot.

// arith is one engine's operations; values are owned by the program once
// produced, and free returns one that is no longer used.
type arith[T any] interface {
	add(a, b T) (T, error)
	addConst(a T, c byte) (T, error)
	addVec(a T, v *slotConst) (T, error) // a public value per slot
	mul(a, b T) (T, error)
	frob(a T, j int) (T, error) // a^(2^j) slot-wise
	lin(a T, m *linMap) ([]T, error)
	free(a T)
}

// slotConst is a public value per slot (a CTR counter byte, a ciphertext
// byte of the data): its K-values for the plaintext engine and its
// prepared form for the others.
type slotConst struct {
	vals []uint64
	pc   any // *bgv.PlainConst
}

// engine runs independent steps (the S-boxes of one layer) on its ariths,
// one goroutine each.
type engine[T any] struct {
	ars []arith[T]
	// consume lets the run free its inputs (data, key or round keys) as
	// soon as they are dead.
	consume bool
	// round, if set, sees the state after each round (r = 0 after the
	// first AddRoundKey for encryption, r = 10 after the first
	// InvSubBytes' linear part for decryption).
	round func(r int, state []T)
}

// observe reports the state after round r.
func (e *engine[T]) observe(r int, s []T) {
	if e.round != nil {
		e.round(r, s)
	}
}

// par runs fn(ar, i) for i < n, spread over the ariths.
func (e *engine[T]) par(n int, fn func(ar arith[T], i int) error) error {
	if len(e.ars) == 1 || n == 1 {
		for i := range n {
			if err := fn(e.ars[0], i); err != nil {
				return err
			}
		}
		return nil
	}
	// Steps are taken from a shared counter rather than dealt out in
	// advance: on a machine shared with other jobs one worker may stall,
	// and the other then takes the remaining steps. Every step writes its
	// own results, so the order changes no value and no noise estimate.
	errs := make([]error, len(e.ars))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w, ar := range e.ars {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if errs[w] = fn(ar, i); errs[w] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// linMap is a set of linearized polynomials of one input (linear maps
// sharing the Frobenius images x^(2^j), j < 8), by their coefficients in K
// (AES.linear prepares them for ciphertexts).
type linMap struct {
	name   string
	coeffs []linCoeffs
}

// inv254 returns x^254 (the AES inverse, 0 ↦ 0) by GHS's chain: three
// Frobenius maps (no depth) and four products, multiplicative depth 3:
// x^3 = x·x^2, x^15 = (x^3)^4·x^3, x^14 = (x^3)^4·x^2, x^254 = (x^15)^16·x^14.
//
// With own, x is freed as soon as it is dead (after x^3): one live
// ciphertext less per worker.
func inv254[T any](ar arith[T], x T, own bool) (T, error) {
	var zero T
	x2, err := ar.frob(x, 1)
	if err != nil {
		return zero, err
	}
	x3, err := ar.mul(x, x2)
	if own {
		ar.free(x)
	}
	if err != nil {
		return zero, err
	}
	x12, err := ar.frob(x3, 2)
	if err != nil {
		return zero, err
	}
	x15, err := ar.mul(x12, x3)
	ar.free(x3)
	if err != nil {
		return zero, err
	}
	x14, err := ar.mul(x12, x2)
	ar.free(x12)
	ar.free(x2)
	if err != nil {
		return zero, err
	}
	x240, err := ar.frob(x15, 4)
	ar.free(x15)
	if err != nil {
		return zero, err
	}
	x254, err := ar.mul(x240, x14)
	ar.free(x240)
	ar.free(x14)
	return x254, err
}

// sum returns the sum of xs (at least one), freeing the partial sums but
// not the terms.
func sum[T any](ar arith[T], xs ...T) (T, error) {
	acc := xs[0]
	for i, x := range xs[1:] {
		next, err := ar.add(acc, x)
		if i > 0 {
			ar.free(acc)
		}
		if err != nil {
			var zero T
			return zero, err
		}
		acc = next
	}
	return acc, nil
}

// Round constants of the key schedule (FIPS-197 5.2).
var rcon = [11]byte{0, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36}

// program holds the linear maps of the AES steps.
type program struct {
	enc  *linMap // {L, 2·L}: SubBytes' linear part and its MixColumns multiple
	last *linMap // {L}: last round and key schedule
	dec0 *linMap // {L^-1}: the first InvSubBytes' linear part
	dec  *linMap // {L^-1∘14, L^-1∘11, L^-1∘13, L^-1∘9}: InvMixColumns fused with L^-1
	bits *linMap // {b ↦ bit j of b, j = 0..7}: GF(2^8) bytes to slot bits
}

// invMixCoef are InvMixColumns' coefficients: row r, column k has
// invMixCoef[(k-r) mod 4].
var invMixCoef = [4]byte{14, 11, 13, 9}

// newProgram derives the maps' coefficients (Field.Linearized).
func newProgram(f *Field) (*program, error) {
	mk := func(name string, ts ...func(byte) byte) (*linMap, error) {
		m := &linMap{name: name}
		for _, t := range ts {
			c, err := f.Linearized(t)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			m.coeffs = append(m.coeffs, c)
		}
		return m, nil
	}
	p := &program{}
	var err error
	if p.enc, err = mk("SubBytes+MixColumns", affineLinear, func(b byte) byte { return aesMul(2, affineLinear(b)) }); err != nil {
		return nil, err
	}
	if p.last, err = mk("SubBytes", affineLinear); err != nil {
		return nil, err
	}
	if p.dec0, err = mk("InvSubBytes", affineLinearInv); err != nil {
		return nil, err
	}
	var ts []func(byte) byte
	for _, c := range invMixCoef {
		ts = append(ts, func(b byte) byte { return affineLinearInv(aesMul(c, b)) })
	}
	if p.dec, err = mk("InvMixColumns+InvSubBytes", ts...); err != nil {
		return nil, err
	}
	ts = nil
	for j := range 8 {
		ts = append(ts, func(b byte) byte { return b >> uint(j) & 1 })
	}
	if p.bits, err = mk("bit extraction", ts...); err != nil {
		return nil, err
	}
	return p, nil
}

// freeAll frees the values the program owns.
func freeAll[T any](ar arith[T], xs []T) {
	for _, x := range xs {
		ar.free(x)
	}
}

// encrypt runs AES-128 encryption on the byte-sliced state data (not
// freed). Rounds 1-9 fuse SubBytes' linear part with MixColumns: each
// S-box input x gives L(x^254) and 2·L(x^254) from one hoisted
// decomposition, MixColumns' 3·s is 2·s ⊕ s, and the constant 0x63 enters
// once per output byte (MixColumns' row sums are 1).
func encrypt[T any](e *engine[T], p *program, data [16]T, keys roundKeys[T]) ([16]T, error) {
	return encryptWith(e, p, func(ar arith[T], i int, rk T) (T, error) {
		s, err := ar.add(data[i], rk)
		if e.consume {
			ar.free(data[i])
		}
		return s, err
	}, keys)
}

// encryptWith is encrypt with the first AddRoundKey given as round0 (byte
// i of the state from byte i of round key 0): a ciphertext sum, or a public
// block added as a constant (CTR counters, transcipher.go).
func encryptWith[T any](e *engine[T], p *program, round0 func(ar arith[T], i int, rk T) (T, error), keys roundKeys[T]) ([16]T, error) {
	var s [16]T
	ar := e.ars[0]
	rk, err := keys(0)
	if err != nil {
		return s, err
	}
	for i := range s {
		if s[i], err = round0(ar, i, rk[i]); err != nil {
			return s, fmt.Errorf("round 0: %w", err)
		}
	}
	e.observe(0, s[:])
	for r := 1; r <= 10; r++ {
		if rk, err = keys(r); err != nil {
			return s, err
		}
		m := p.enc
		if r == 10 {
			m = p.last
		}
		var out [16]T
		// Column c of the output reads the diagonal 4((c+row) mod 4)+row of
		// the S-box outputs (ShiftRows): do it diagonal by diagonal, so that
		// at most 8 S-box results are live.
		for c := range 4 {
			var t [4][]T // t[row]: the maps of S-box input 4((c+row) mod 4)+row
			if err := e.par(4, func(ar arith[T], row int) error {
				idx := 4*((c+row)%4) + row
				v, err := inv254(ar, s[idx], true)
				if err != nil {
					return err
				}
				t[row], err = ar.lin(v, m)
				ar.free(v)
				return err
			}); err != nil {
				return s, fmt.Errorf("round %d: %w", r, err)
			}
			for row := range 4 {
				var x T
				if r < 10 {
					x, err = sum(ar, t[row][1], t[(row+1)%4][1], t[(row+1)%4][0], t[(row+2)%4][0], t[(row+3)%4][0])
				} else {
					x = t[row][0]
				}
				if err != nil {
					return s, fmt.Errorf("round %d: %w", r, err)
				}
				y, err := ar.addConst(x, sboxConst)
				if r < 10 {
					ar.free(x)
				}
				if err != nil {
					return s, fmt.Errorf("round %d: %w", r, err)
				}
				out[4*c+row], err = ar.add(y, rk[4*c+row])
				ar.free(y)
				if err != nil {
					return s, fmt.Errorf("round %d: %w", r, err)
				}
			}
			for row := range 4 {
				freeAll(ar, t[row])
			}
		}
		s = out
		e.observe(r, s[:])
	}
	_, err = keys(-1)
	return s, err
}

// decrypt runs the AES-128 inverse cipher on data (not freed) with the
// round keys asked for in order 10, 9, ..., 0. InvMixColumns, InvShiftRows
// and the next InvSubBytes' linear part L^-1 fuse: every byte u of a column
// gives L^-1(m·u) for the four InvMixColumns coefficients m from one
// hoisted decomposition, and the constant L^-1(0x63) = 0x05 enters once.
func decrypt[T any](e *engine[T], p *program, data [16]T, keys roundKeys[T]) ([16]T, error) {
	var z [16]T
	ar := e.ars[0]
	dconst := affineLinearInv(sboxConst)
	rk, err := keys(10)
	if err != nil {
		return z, err
	}
	if err := e.par(16, func(ar arith[T], i int) error {
		// x = data ⊕ rk10 at position i; InvShiftRows moves it to column
		// (c + row) mod 4.
		c, row := i/4, i%4
		x, err := ar.add(data[i], rk[i])
		if err != nil {
			return err
		}
		if e.consume {
			ar.free(data[i])
		}
		l, err := ar.lin(x, p.dec0)
		ar.free(x)
		if err != nil {
			return err
		}
		z[4*((c+row)%4)+row], err = ar.addConst(l[0], dconst)
		ar.free(l[0])
		return err
	}); err != nil {
		return z, fmt.Errorf("round 10: %w", err)
	}
	e.observe(10, z[:])
	for r := 9; r >= 0; r-- {
		if rk, err = keys(r); err != nil {
			return z, err
		}
		var u [16]T
		var U [16][]T
		if err := e.par(16, func(ar arith[T], i int) error {
			v, err := inv254(ar, z[i], true)
			if err != nil {
				return err
			}
			u[i], err = ar.add(v, rk[i])
			ar.free(v)
			if err != nil || r == 0 {
				return err
			}
			U[i], err = ar.lin(u[i], p.dec)
			ar.free(u[i])
			return err
		}); err != nil {
			return z, fmt.Errorf("round %d: %w", r, err)
		}
		if r == 0 {
			e.observe(0, u[:])
			_, err = keys(-1)
			return u, err
		}
		for c := range 4 {
			for row := range 4 {
				cs := (c - row) & 3 // InvShiftRows' source column
				var terms [4]T
				for k := range 4 {
					terms[k] = U[4*cs+k][(k-row)&3]
				}
				x, err := sum(ar, terms[:]...)
				if err != nil {
					return z, fmt.Errorf("round %d: %w", r, err)
				}
				z[4*c+row], err = ar.addConst(x, dconst)
				ar.free(x)
				if err != nil {
					return z, fmt.Errorf("round %d: %w", r, err)
				}
			}
		}
		for i := range U {
			freeAll(ar, U[i])
		}
		e.observe(r, z[:])
	}
	return z, nil
}
