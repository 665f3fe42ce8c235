package bgvaes

import "fmt"

// The AES-128 key schedule (FIPS-197 5.2) on byte-sliced values, as
// sources of round keys for the program: expanded forwards on demand
// (encryption), backwards from the last round key (decryption), or
// supplied by the caller.

// roundKeys yields round key r (16 values); r = -1 ends the run. The
// source owns the keys: it frees a round key once the next is asked for
// (or at the end) if it derived it, or if the run consumes its inputs
// (engine.consume), so the program must not keep one past the next request.
type roundKeys[T any] func(r int) ([16]T, error)

// expandNext returns round key r from round key r-1 (FIPS-197 5.2 on
// bytes): w[4r][row] = w[4r-4][row] ⊕ S(w[4r-1][row+1]) ⊕ rcon_r·[row=0],
// w[4r+c] = w[4r+c-4] ⊕ w[4r+c-1]. The four S-boxes run in parallel. With
// dispose, each byte of prev is freed as soon as it is dead, so that the
// two round keys are never both whole.
func expandNext[T any](e *engine[T], p *program, prev [16]T, r int, dispose bool) ([16]T, error) {
	var next [16]T
	ar := e.ars[0]
	err := e.par(4, func(ar arith[T], row int) error {
		var err error
		next[row], err = scheduleCore(ar, p, prev[12+(row+1)%4], prev[row], row, r)
		return err
	})
	if err != nil {
		return next, fmt.Errorf("key expansion, round key %d: %w", r, err)
	}
	for c := 0; c < 4; c++ {
		for row := range 4 {
			i := 4*c + row
			if c > 0 {
				if next[i], err = ar.add(prev[i], next[i-4]); err != nil {
					return next, fmt.Errorf("key expansion, round key %d: %w", r, err)
				}
			}
			if dispose {
				ar.free(prev[i])
			}
		}
	}
	return next, nil
}

// expandingKeys expands key on demand: round keys must be asked for in
// order 0, 1, ..., 10.
func expandingKeys[T any](e *engine[T], p *program, key [16]T) roundKeys[T] {
	var cur [16]T
	last := -1
	return func(r int) ([16]T, error) {
		switch {
		case r == -1:
			if last > 0 {
				freeAll(e.ars[0], cur[:])
			} else if e.consume {
				freeAll(e.ars[0], key[:])
			}
			return cur, nil
		case r == 0:
			last = 0
			return key, nil
		case r != last+1:
			return cur, fmt.Errorf("internal error: round key %d after %d", r, last)
		}
		prev := key
		if last > 0 {
			prev = cur
		}
		next, err := expandNext(e, p, prev, r, last > 0 || e.consume)
		if err != nil {
			return next, err
		}
		cur, last = next, r
		return next, nil
	}
}

// expandAll returns all 11 round keys (round key 0 is key itself).
func expandAll[T any](e *engine[T], p *program, key [16]T) ([11][16]T, error) {
	var rks [11][16]T
	rks[0] = key
	for r := 1; r <= 10; r++ {
		var err error
		if rks[r], err = expandNext(e, p, rks[r-1], r, false); err != nil {
			return rks, err
		}
	}
	return rks, nil
}

// suppliedKeys serves round keys the caller supplied; when the run
// consumes its inputs, each is freed once the next is asked for.
func suppliedKeys[T any](e *engine[T], rks [11][16]T) roundKeys[T] {
	prev := -1
	return func(r int) ([16]T, error) {
		if e.consume && prev >= 0 {
			freeAll(e.ars[0], rks[prev][:])
		}
		if r == -1 {
			prev = -1
			return rks[0], nil
		}
		if r < 0 || r > 10 {
			return rks[0], fmt.Errorf("internal error: round key %d", r)
		}
		prev = r
		return rks[r], nil
	}
}

// expandPrev returns round key r-1 from round key r (the key schedule
// run backwards): w[4(r-1)+c] = w[4r+c] ⊕ w[4r+c-1] for c = 3, 2, 1, then
// w[4(r-1)][row] = w[4r][row] ⊕ S(w[4(r-1)+3][row+1]) ⊕ rcon_r·[row=0].
// With dispose, each byte of cur is freed as soon as it is dead.
func expandPrev[T any](e *engine[T], p *program, cur [16]T, r int, dispose bool) ([16]T, error) {
	var prev [16]T
	ar := e.ars[0]
	var err error
	for c := 3; c >= 1; c-- {
		for row := range 4 {
			i := 4*c + row
			if prev[i], err = ar.add(cur[i], cur[i-4]); err != nil {
				return prev, fmt.Errorf("inverse key expansion, round key %d: %w", r-1, err)
			}
			if dispose {
				ar.free(cur[i])
			}
		}
	}
	err = e.par(4, func(ar arith[T], row int) error {
		var err error
		prev[row], err = scheduleCore(ar, p, prev[12+(row+1)%4], cur[row], row, r)
		return err
	})
	if err != nil {
		return prev, fmt.Errorf("inverse key expansion, round key %d: %w", r-1, err)
	}
	if dispose {
		freeAll(ar, cur[:4])
	}
	return prev, nil
}

// expandingKeysDown runs the key schedule backwards from the last round
// key (not freed) on demand, in the order decryption uses them: 10, 9, ...,
// 0. Each round key costs the same depth as in encryption, so decryption
// with an encrypted key needs no more levels than encryption; expanding
// forwards first would put round key 10 ten S-boxes deep before the first
// round (M65537's chain does not have the levels for both).
func expandingKeysDown[T any](e *engine[T], p *program, last [16]T) roundKeys[T] {
	var cur [16]T
	at := 11
	return func(r int) ([16]T, error) {
		switch {
		case r == -1:
			if at < 10 {
				freeAll(e.ars[0], cur[:])
			} else if e.consume {
				freeAll(e.ars[0], last[:])
			}
			return cur, nil
		case r == 10:
			at = 10
			return last, nil
		case r != at-1:
			return cur, fmt.Errorf("internal error: round key %d after %d", r, at)
		}
		from := last
		if at < 10 {
			from = cur
		}
		prev, err := expandPrev(e, p, from, r+1, at < 10 || e.consume)
		if err != nil {
			return prev, err
		}
		cur, at = prev, r
		return prev, nil
	}
}

// scheduleCore is the non-linear step of the key schedule for one row of
// the first column of round key r: base ⊕ SubWord(RotWord(w))[row] ⊕
// Rcon[r] (row 0 only), where w is the byte of the previous round key's
// last column that RotWord brings to this row. The forward expansion and
// the inverse expansion (which recovers the older column) both compute it.
func scheduleCore[T any](ar arith[T], p *program, w, base T, row, r int) (T, error) {
	var zero T
	v, err := inv254(ar, w, false)
	if err != nil {
		return zero, err
	}
	l, err := ar.lin(v, p.last)
	ar.free(v)
	if err != nil {
		return zero, err
	}
	s, err := ar.add(base, l[0])
	ar.free(l[0])
	if err != nil {
		return zero, err
	}
	c := byte(sboxConst)
	if row == 0 {
		c ^= rcon[r]
	}
	out, err := ar.addConst(s, c)
	ar.free(s)
	return out, err
}
