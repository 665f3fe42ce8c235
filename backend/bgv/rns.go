package bgv

import (
	"fmt"
	"math"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// This file holds the RNS machinery behind key switching, modulus switching
// and decryption: fast base extension (modulus raising) and exact division by
// a product of primes with the plaintext-modulus-2 correction (GHS 3.2 and
// appendix E), all on coefficient rows, with tables precomputed per level.

// baseConverter extends an integer x given by its residues modulo the source
// primes q_i (product Q_S) to residues modulo the target primes p_j. It
// returns the centred representative of [c·x]_(Q_S) in [-Q_S/2, Q_S/2), for
// the constant c = 1 or c = 2^-1 mod Q_S (the halving used by the mod-2
// corrected division, see scaleDown):
//
//	y_i = [x_i·c·(Q_S/q_i)^-1]_(q_i),  x̂ = Σ_i y_i·(Q_S/q_i) - u·Q_S,
//
// with u = round(Σ_i y_i/q_i) computed in float64 (Halevi–Polyakov–Shoup).
// Σ y_i/q_i is within α·2^-52 of a rational whose fractional part tells
// where x̂ lies, so u is exact except within that distance of ±Q_S/2, where
// either choice is a valid small representative.
type baseConverter struct {
	src, dst            []modulus
	hatInv, hatInvShoup []uint64   // [c·(Q_S/q_i)^-1]_(q_i)
	invQ                []float64  // 1/q_i
	hat, hatShoup       [][]uint64 // [j][i] = (Q_S/q_i) mod p_j
	uQ                  [][]uint64 // [j][u] = u·Q_S mod p_j, u = 0..α
	// Vector kernel constants: per source {q_i, hatInv, its Shoup
	// companion, companion >> 32, bits of 1/q_i}; per target {p_j,
	// [Q_S]_(p_j), its companion, companion >> 32}.
	srcVec []([5]uint64)
	dstVec []([4]uint64)
}

func newBaseConverter(src, dst []modulus, halve bool) *baseConverter {
	bc := &baseConverter{src: src, dst: dst}
	alpha := len(src)
	for i, qi := range src {
		hat := uint64(1)
		for k, qk := range src {
			if k != i {
				hat = ring.MulMod64(hat, qk.Q%qi.Q, qi.Q)
			}
		}
		w := ring.InvModPrime(hat, qi.Q)
		if halve {
			w = ring.MulMod64(w, ring.InvModPrime(2, qi.Q), qi.Q)
		}
		bc.hatInv = append(bc.hatInv, w)
		bc.hatInvShoup = append(bc.hatInvShoup, ring.ShoupConst64(w, qi.Q))
		bc.invQ = append(bc.invQ, 1/float64(qi.Q))
	}
	for _, pj := range dst {
		p := pj.Q
		hat, hatP := make([]uint64, alpha), make([]uint64, alpha)
		qs := uint64(1)
		for i, qi := range src {
			h := uint64(1)
			for k, qk := range src {
				if k != i {
					h = ring.MulMod64(h, qk.Q%p, p)
				}
			}
			hat[i], hatP[i] = h, ring.ShoupConst64(h, p)
			qs = ring.MulMod64(qs, qi.Q%p, p)
		}
		uq := make([]uint64, alpha+1)
		for u := range uq {
			uq[u] = ring.MulMod64(uint64(u), qs, p)
		}
		bc.hat, bc.hatShoup, bc.uQ = append(bc.hat, hat), append(bc.hatShoup, hatP), append(bc.uQ, uq)
		qsS := ring.ShoupConst64(qs, p)
		bc.dstVec = append(bc.dstVec, [4]uint64{p, qs, qsS, qsS >> 32})
	}
	for i, qi := range src {
		bc.srcVec = append(bc.srcVec, [5]uint64{qi.Q, bc.hatInv[i], bc.hatInvShoup[i],
			bc.hatInvShoup[i] >> 32, math.Float64bits(bc.invQ[i])})
	}
	return bc
}

// convChunk is the number of coefficients the vector base conversion
// handles per target before moving on (4 KiB per source row).
const convChunk = 512

// maxConvSources bounds the source primes of a vector base conversion (the
// row headers live in a fixed array on the stack).
const maxConvSources = 64

// convert sets out[j] (coefficients mod p_j) from in[i] (coefficients mod
// q_i, in [0, q_i)). y has len(src) rows of scratch and v one float row.
// Allocates nothing.
func (bc *baseConverter) convert(in, out, y [][]uint64, v []float64) {
	n := len(v)
	clear(v)
	for i := range bc.src {
		q := bc.src[i].Q
		x, yi := in[i][:n], y[i][:n]
		w, wp, inv := bc.hatInv[i], bc.hatInvShoup[i], bc.invQ[i]
		for k := bconvPrepVec(x, yi, v, &bc.srcVec[i]); k < n; k++ {
			t := ring.MulShoup64(x[k], w, wp, q)
			yi[k] = t
			v[k] += float64(t) * inv
		}
	}
	k0 := 0
	if hasVec && len(bc.src) <= maxConvSources {
		// Vector kernel, in chunks of coefficients so that the α source
		// rows of a chunk stay in cache while every target reads them
		// (whole rows would be re-read from memory once per target).
		k0 = n &^ 31 // bconvRowVec's granularity
		var rows [maxConvSources][]uint64
		for c0 := 0; c0 < k0; c0 += convChunk {
			c1 := min(c0+convChunk, k0)
			for i := range bc.src {
				rows[i] = y[i][c0:c1]
			}
			for j := range bc.dst {
				bconvRowVec(rows[:len(bc.src)], bc.hat[j], bc.hatShoup[j], v[c0:c1], out[j][c0:c1], &bc.dstVec[j])
			}
		}
	}
	for j := range bc.dst {
		bc.convertTail(j, y, v, out[j], k0)
	}
}

// convertTail computes target j's coefficients k0..n-1 of convert.
func (bc *baseConverter) convertTail(j int, y [][]uint64, v []float64, o []uint64, k0 int) {
	n := len(v)
	md := &bc.dst[j]
	p, twoP := md.Q, 2*md.Q
	o, uq := o[:n], bc.uQ[j]
	if len(bc.src) == 1 {
		// One source prime: x̂ = y - u·q, the centred residue; the hat is 1.
		y0 := y[0][:n]
		for k := k0; k < n; k++ {
			o[k] = ring.SubMod64(md.Reduce(y0[k]), uq[int(v[k]+0.5)], p)
		}
		return
	}
	hat, hatP := bc.hat[j], bc.hatShoup[j]
	for k := k0; k < n; k++ {
		var acc uint64
		for i, w := range hat {
			acc += ring.MulShoupLazy64(y[i][k], w, hatP[i], p)
			acc = min(acc, acc-twoP)
		}
		acc = min(acc, acc-p)
		o[k] = ring.SubMod64(acc, uq[int(v[k]+0.5)], p)
	}
}

// scaleDown divides by D, the product of the source primes of its converter,
// with the rounding that keeps the plaintext (GHS 3.2, appendix E): for x
// known modulo D·Q' it finds δ ≡ x (mod D) with δ ≡ 0 (mod 2) and |δ| <= D
// (δ = 2·[x·2^-1]_D, centred) and returns (x - δ)/D modulo the target primes
// of Q'. x - δ is divisible by D and has the parity of x, and D is odd, so
// the quotient has the parity of x: for the phase ⟨c, s⟩ = μ + 2e of a
// ciphertext this maps the noise ν to (ν - ⟨δ, s⟩)/D with ⟨δ, s⟩ even.
type scaleDown struct {
	conv                  *baseConverter
	inv, invShoup         []uint64 // D^-1 mod p_j
	twoInv, twoInvShoup   []uint64 // 2·D^-1 mod p_j
	srcIndex, dstIndex    []int    // ringQP indices
	srcPrimes, dstPrimes  []modulus
	divisorLog2, dstLog2Q float64
	vec                   []([7]uint64) // finish's vector constants per target
}

func newScaleDown(r *Ring, src, dst []int) *scaleDown {
	sd := &scaleDown{srcIndex: src, dstIndex: dst}
	for _, i := range src {
		sd.srcPrimes = append(sd.srcPrimes, r.moduli[i])
		sd.divisorLog2 += math.Log2(float64(r.moduli[i].Q))
	}
	for _, j := range dst {
		md := r.moduli[j]
		sd.dstPrimes = append(sd.dstPrimes, md)
		d := uint64(1)
		for _, s := range sd.srcPrimes {
			d = ring.MulMod64(d, s.Q%md.Q, md.Q)
		}
		inv := ring.InvModPrime(d, md.Q)
		two := ring.MulMod64(2, inv, md.Q)
		sd.inv, sd.invShoup = append(sd.inv, inv), append(sd.invShoup, ring.ShoupConst64(inv, md.Q))
		sd.twoInv, sd.twoInvShoup = append(sd.twoInv, two), append(sd.twoInvShoup, ring.ShoupConst64(two, md.Q))
		sd.dstLog2Q += math.Log2(float64(md.Q))
		is, ts := ring.ShoupConst64(inv, md.Q), ring.ShoupConst64(two, md.Q)
		sd.vec = append(sd.vec, [7]uint64{md.Q, inv, is, is >> 32, two, ts, ts >> 32})
	}
	sd.conv = newBaseConverter(sd.srcPrimes, sd.dstPrimes, true)
	return sd
}

// finish sets out = x·D^-1 - δ'·(2·D^-1) modulo target prime j, where
// delta holds δ' = [x·2^-1]_D (centred, reduced mod p_j) in the same
// representation as x.
func (sd *scaleDown) finish(j int, x, delta, out []uint64) {
	q := sd.dstPrimes[j].Q
	w, wp, w2, w2p := sd.inv[j], sd.invShoup[j], sd.twoInv[j], sd.twoInvShoup[j]
	delta = delta[:len(out)]
	x = x[:len(out)]
	for k := shoupPairVec(x, delta, out, &sd.vec[j]); k < len(out); k++ {
		out[k] = ring.SubMod64(ring.MulShoup64(x[k], w, wp, q), ring.MulShoup64(delta[k], w2, w2p, q), q)
	}
}

// levelTables are the precomputed RNS tables of level t.
type levelTables struct {
	// qp[r] is the ringQP index of row r of a level-t element of the
	// extended basis Q_t·P: rows 0..t are p_0..p_t, rows t+1.. the special primes.
	qp     []int
	digits []digitTables
	// modDown divides an element of Q_t·P by P (key switching's last step).
	modDown *scaleDown
	// drop divides by p_t (modulus switching to level t-1); nil at level 0.
	drop *scaleDown
	// toZero divides by p_1·…·p_t (decryption at level 0); nil at level 0.
	toZero *scaleDown
}

// digitTables extend one key-switching digit to the rest of the basis.
type digitTables struct {
	key int   // index of the digit (and of its key component)
	src []int // rows of the digit's primes at this level
	dst []int // all other rows of the extended basis
	// inDigit[r] reports whether row r of the extended basis is a source
	// row (already in evaluation form in the ciphertext).
	inDigit []bool
	conv    *baseConverter
}

// digitPartition cuts p_0..p_L into consecutive digits: count of them of
// (nearly) equal length, or, for count = 0, greedily so that each digit's
// product stays at most P.
func (pr *Params) digitPartition(count int) ([][]int, error) {
	L := len(pr.q)
	if count < 0 || count > L {
		return nil, fmt.Errorf("key-switching digits %d outside [0, %d]", count, L)
	}
	var out [][]int
	if count > 0 {
		for j := 0; j < count; j++ {
			var d []int
			for i := j * L / count; i < (j+1)*L/count; i++ {
				d = append(d, i)
			}
			out = append(out, d)
		}
		return out, nil
	}
	logP := 0.0
	for _, p := range pr.p {
		logP += math.Log2(float64(p))
	}
	var cur []int
	size := 0.0
	for i, q := range pr.q {
		b := math.Log2(float64(q))
		if len(cur) > 0 && size+b > logP {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, i)
		size += b
	}
	return append(out, cur), nil
}

// buildRNSTables precomputes every level's tables.
func (pr *Params) buildRNSTables() {
	L := len(pr.q) - 1
	k := len(pr.p)
	r := pr.ringQP
	pr.rns = make([]levelTables, L+1)
	for t := 0; t <= L; t++ {
		lv := &pr.rns[t]
		for i := 0; i <= t; i++ {
			lv.qp = append(lv.qp, i)
		}
		for j := 0; j < k; j++ {
			lv.qp = append(lv.qp, L+1+j)
		}
		for key, dg := range pr.digits {
			var src, dst []int
			in := map[int]bool{}
			for _, i := range dg {
				if i <= t {
					src = append(src, i)
					in[i] = true
				}
			}
			if len(src) == 0 {
				continue
			}
			var srcM, dstM []modulus
			for _, i := range src {
				srcM = append(srcM, r.moduli[i])
			}
			for row, idx := range lv.qp {
				if !in[row] {
					dst = append(dst, row)
					dstM = append(dstM, r.moduli[idx])
				}
			}
			inDigit := make([]bool, len(lv.qp))
			for _, row := range src {
				inDigit[row] = true
			}
			lv.digits = append(lv.digits, digitTables{key: key, src: src, dst: dst, inDigit: inDigit,
				conv: newBaseConverter(srcM, dstM, false)})
		}
		lv.modDown = newScaleDown(r, lv.qp[t+1:], lv.qp[:t+1])
		if t > 0 {
			lv.drop = newScaleDown(r, []int{t}, lv.qp[:t])
			lv.toZero = newScaleDown(r, lv.qp[1:t+1], []int{0})
		}
	}
}
