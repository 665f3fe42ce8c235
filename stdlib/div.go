package stdlib

import (
	"fmt"
	"math/big"

	"github.com/hcc-fhe/hcc/ir"
)

// DivModConst divides x by the constant d and returns the quotient and the
// remainder, both len(x) bits. d must be non-zero and fit len(x) bits with
// the same signedness as x. Signed division truncates toward zero and the
// remainder takes the dividend's sign (Go semantics); MIN / -1 wraps to MIN
// with remainder 0.
//
// It is restoring long division. Because d is a constant, a step whose
// partial remainder provably cannot reach d is skipped (its quotient bit is
// 0), and the partial remainder is kept only bits.Len(d)+1 bits wide; the
// builder folds the constant subtrahend into the subtractors.
func DivModConst(b *ir.Builder, x []ir.NodeID, d *big.Int, signed bool, s Style) (q, r []ir.NodeID, err error) {
	n := len(x)
	if d.Sign() == 0 {
		return nil, nil, fmt.Errorf("division by constant zero")
	}
	if n == 0 {
		return nil, nil, fmt.Errorf("division of a 0-bit value")
	}
	one := big.NewInt(1)
	if signed {
		lo := new(big.Int).Neg(new(big.Int).Lsh(one, uint(n-1)))
		hi := new(big.Int).Sub(new(big.Int).Lsh(one, uint(n-1)), one)
		if d.Cmp(lo) < 0 || d.Cmp(hi) > 0 {
			return nil, nil, fmt.Errorf("divisor %v does not fit s%d", d, n)
		}
		sx := x[n-1]
		mag := condNeg(b, x, sx, s) // |x| as an unsigned n-bit value (|MIN| = 2^(n-1))
		qu, ru := divModUnsigned(b, mag, new(big.Int).Abs(d), s)
		qneg := sx
		if d.Sign() < 0 {
			qneg = b.Not(sx)
		}
		return condNeg(b, qu, qneg, s), condNeg(b, ru, sx, s), nil
	}
	if d.Sign() < 0 || d.BitLen() > n {
		return nil, nil, fmt.Errorf("divisor %v does not fit u%d", d, n)
	}
	q, r = divModUnsigned(b, x, d, s)
	return q, r, nil
}

// divModUnsigned is restoring division of the unsigned x by 0 < d < 2^len(x).
func divModUnsigned(b *ir.Builder, x []ir.NodeID, d *big.Int, s Style) (q, r []ir.NodeID) {
	n := len(x)
	m := d.BitLen() + 1 // the partial remainder is < 2d < 2^m before each compare
	dBits := Constant(b, d, m)
	rem := zeros(b, m)
	q = make([]ir.NodeID, n)
	for i := n - 1; i >= 0; i-- {
		// rem = rem<<1 | x[i]; it still fits m bits because rem < d.
		rem = append([]ir.NodeID{x[i]}, rem[:m-1]...)
		// After taking bits n-1..i, rem < 2^(n-i) <= d whenever n-i < bitlen(d).
		if n-i < d.BitLen() {
			q[i] = b.Const(false)
			continue
		}
		diff, noBorrow := Add(b, rem, notVec(b, dBits), b.Const(true), s)
		q[i] = noBorrow // rem >= d
		rem = MuxVec(b, noBorrow, diff, rem)
	}
	r = append(rem[:m-1:m-1], zeros(b, max(0, n-(m-1)))...)
	return q, r[:n]
}
