// Command peerbench times Lattigo v6.1.1's BGV multiply+relinearize at
// N = 2^16 next to hcc's bgv Mul at m = 65537, in one run on the same
// machine. It is a separate module so that hcc never depends on Lattigo.
//
// Lattigo's ring gets the same RNS shape as hcc's M65537 chain: p_0 of 45
// bits, 21 primes of 59 bits and 8 special primes of 59 bits (log2 QP ≈
// 1756), so both compare at the same number of primes at every level. With
// 22 ciphertext primes and 8 special primes Lattigo's hybrid key switching
// decomposes into ceil(22/8) = 3 RNS digits at the top level (2 at level
// 10), the count hcc's chain uses; the program prints both counts. What
// differs: the ring (Lattigo X^N+1 with N = 65536, hcc Φ_65537 with
// φ = 65536, whose transforms are Rader convolutions of length 2^16), the
// primes themselves (hcc's are ≡ 1 mod 2^16·m, Lattigo's ≡ 1 mod 2^17) and
// the plaintext modulus (Lattigo refuses t = 2, so it runs with
// t = 65537; hcc with t = 2). Lattigo's products are decrypted and checked
// against the slot-wise product of the two known plaintexts, and hcc's
// against the AND of two random bit vectors, before any time is quoted.
//
// Each repetition times, interleaved so that load drifts hit both alike:
// Lattigo MulRelin, hcc Mul, Lattigo Relinearize alone (its key switch plus
// two additions), hcc Relinearize alone (the same), at the top level and at
// level 10 (halfway down hcc's 21 levels). Medians and fastest repetitions
// are printed. Both libraries run single-threaded; with -workers W > 1 the
// program also times hcc's Mul with its key switches spread over W
// goroutines (bgv.Params.NewParallelScratch), printed as an extra line.
//
//	go run . [-reps 7] [-workers 2]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	lbgv "github.com/tuneinsight/lattigo/v6/schemes/bgv"
)

func main() {
	reps := flag.Int("reps", 7, "timed repetitions per operation and level")
	workers := flag.Int("workers", 2, "also time hcc's mul+relin with key switches on this many goroutines (extra line; 1 = off)")
	flag.Parse()
	if err := run(*reps, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "peerbench:", err)
		os.Exit(1)
	}
}

// median returns the middle value of xs (the upper one for even counts).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// fastest returns the smallest value of xs.
func fastest(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}

// repeatInt returns v count times.
func repeatInt(v, count int) []int {
	out := make([]int, count)
	for i := range out {
		out[i] = v
	}
	return out
}

// timeMs runs f once and returns its wall time in milliseconds.
func timeMs(f func() error) (float64, error) {
	t := time.Now()
	err := f()
	return float64(time.Since(t).Microseconds()) / 1e3, err
}

// heapMB returns the live heap after a collection, in MB.
func heapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / 1e6
}

// peer holds Lattigo's side: parameters, keys and the checked operands.
type peer struct {
	params lbgv.Parameters
	eval   *lbgv.Evaluator
	enc    *lbgv.Encoder
	dec    *rlwe.Decryptor
	x, y   *rlwe.Ciphertext // top-level operands
	want   []uint64         // slot-wise x·y mod t
}

// newPeer builds Lattigo's BGV at N = 2^16 with hcc M65537's prime sizes.
func newPeer(seedRng *rand.Rand) (*peer, error) {
	lit := bgv.M65537Literal
	params, err := lbgv.NewParametersFromLiteral(lbgv.ParametersLiteral{
		LogN: 16, LogQ: lit.LogQ, LogP: lit.LogP, PlaintextModulus: 65537,
	})
	if err != nil {
		return nil, fmt.Errorf("lattigo parameters: %w", err)
	}
	t0 := time.Now()
	kgen := lbgv.NewKeyGenerator(params)
	sk, pk := kgen.GenKeyPairNew()
	rlk := kgen.GenRelinearizationKeyNew(sk)
	keygen := time.Since(t0)
	p := &peer{
		params: params,
		eval:   lbgv.NewEvaluator(params, rlwe.NewMemEvaluationKeySet(rlk)),
		enc:    lbgv.NewEncoder(params),
		dec:    lbgv.NewDecryptor(params, sk),
	}
	tMod := params.PlaintextModulus()
	slots := params.MaxSlots()
	a, b := make([]uint64, slots), make([]uint64, slots)
	p.want = make([]uint64, slots)
	for i := range a {
		a[i], b[i] = seedRng.Uint64N(tMod), seedRng.Uint64N(tMod)
		p.want[i] = a[i] * b[i] % tMod
	}
	encr := lbgv.NewEncryptor(params, pk)
	for _, pair := range []struct {
		v  []uint64
		ct **rlwe.Ciphertext
	}{{a, &p.x}, {b, &p.y}} {
		pt := lbgv.NewPlaintext(params, params.MaxLevel())
		if err := p.enc.Encode(pair.v, pt); err != nil {
			return nil, fmt.Errorf("lattigo encode: %w", err)
		}
		if *pair.ct, err = encr.EncryptNew(pt); err != nil {
			return nil, fmt.Errorf("lattigo encrypt: %w", err)
		}
	}
	fmt.Printf("lattigo v6.1.1 bgv: N=2^%d, %d+%d primes, log2 Q = %.1f, log2 QP = %.1f, t = %d, %d slots; key generation %.2f s; relin key %.1f MB; digits at top %d, at level 10 %d\n",
		params.LogN(), params.QCount(), params.PCount(), params.LogQ(), params.LogQP(), tMod, slots, keygen.Seconds(),
		float64(rlk.BinarySize())/1e6,
		params.BaseRNSDecompositionVectorSize(params.MaxLevelQ(), params.MaxLevelP()),
		params.BaseRNSDecompositionVectorSize(10, params.MaxLevelP()))
	return p, nil
}

// check decrypts ct and compares every slot with p.want.
func (p *peer) check(ct *rlwe.Ciphertext) error {
	got := make([]uint64, p.params.MaxSlots())
	if err := p.enc.Decode(p.dec.DecryptNew(ct), got); err != nil {
		return fmt.Errorf("lattigo decode: %w", err)
	}
	for i := range got {
		if got[i] != p.want[i] {
			return fmt.Errorf("lattigo product at level %d decrypts wrongly: slot %d = %d, want %d", ct.Level(), i, got[i], p.want[i])
		}
	}
	return nil
}

// host holds hcc's side at M65537.
type host struct {
	pr     *bgv.Params
	ev     *bgv.Evaluator
	sc     *bgv.Scratch
	encd   *bgv.Encoder
	de     *bgv.Decryptor
	x, y   *bgv.Ciphertext
	want   []uint8 // slot-wise x AND y
	keyMB  float64
	digits [][]int
}

// newHost builds hcc's M65537 with a relinearization key only.
func newHost(seedRng *rand.Rand) (*host, error) {
	pr, err := bgv.NewParams(bgv.M65537Literal)
	if err != nil {
		return nil, fmt.Errorf("hcc parameters: %w", err)
	}
	smp := bgv.NewSamplerFromSeed([32]byte{7})
	kg := bgv.NewKeyGenerator(pr, smp)
	t0 := time.Now()
	sk := kg.GenSecretKey()
	pk := kg.GenPublicKey(sk)
	relin := kg.GenRelinKey(sk)
	keygen := time.Since(t0)
	h := &host{pr: pr, ev: bgv.NewEvaluator(pr, bgv.NewEvaluationKeySet(relin)), sc: pr.NewScratch(),
		de: bgv.NewDecryptor(pr, sk), digits: pr.Digits()}
	h.keyMB = float64(len(h.digits)*2*(len(pr.Q())+len(pr.P()))*pr.N()*8) / 1e6
	t0 = time.Now()
	if h.encd, err = bgv.NewEncoder(pr); err != nil {
		return nil, fmt.Errorf("hcc encoder: %w", err)
	}
	encoderTime := time.Since(t0)
	slots := pr.Slots()
	a, b := make([]uint8, slots), make([]uint8, slots)
	h.want = make([]uint8, slots)
	for i := range a {
		a[i], b[i] = uint8(seedRng.IntN(2)), uint8(seedRng.IntN(2))
		h.want[i] = a[i] & b[i]
	}
	en := bgv.NewPublicEncryptor(pr, pk, smp)
	for _, pair := range []struct {
		v  []uint8
		ct **bgv.Ciphertext
	}{{a, &h.x}, {b, &h.y}} {
		pt := bgv.NewBinaryPoly(pr.N())
		if err := h.encd.EncodeBits(pair.v, pt); err != nil {
			return nil, err
		}
		*pair.ct = en.Encrypt(pt)
	}
	fmt.Printf("hcc bgv %s: m=%d, phi=%d, %d+%d primes, log2 QP = %.1f, t = 2, %d slots; key generation %.2f s (encoder %.2f s); relin key %.1f MB; digit sizes %v\n",
		pr.Name(), pr.M(), pr.N(), len(pr.Q()), len(pr.P()), pr.LogQP(), slots, keygen.Seconds(), encoderTime.Seconds(), h.keyMB, digitSizes(h.digits))
	return h, nil
}

// digitSizes returns the number of primes in each key-switching digit.
func digitSizes(d [][]int) []int {
	out := make([]int, len(d))
	for i := range d {
		out[i] = len(d[i])
	}
	return out
}

// digitsAt counts hcc's digits that hold a prime of level t's chain p_0..p_t.
func (h *host) digitsAt(t int) int {
	n := 0
	for _, d := range h.digits {
		for _, i := range d {
			if i <= t {
				n++
				break
			}
		}
	}
	return n
}

// check decrypts ct and compares every slot with h.want.
func (h *host) check(ct *bgv.Ciphertext) error {
	pt := bgv.NewBinaryPoly(h.pr.N())
	h.de.DecryptTo(ct, pt, h.sc)
	got := make([]uint8, h.pr.Slots())
	if err := h.encd.DecodeBits(pt, got); err != nil {
		return fmt.Errorf("hcc product at level %d: %w", ct.Level(), err)
	}
	for i := range got {
		if got[i] != h.want[i] {
			return fmt.Errorf("hcc product at level %d decrypts wrongly: slot %d = %d, want %d", ct.Level(), i, got[i], h.want[i])
		}
	}
	return nil
}

func run(reps, workers int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	p, err := newPeer(rng)
	if err != nil {
		return err
	}
	h, err := newHost(rng)
	if err != nil {
		return err
	}
	fmt.Printf("live heap after setup: %.0f MB\n", heapMB())
	if h.pr.MaxLevel() != p.params.MaxLevel() {
		return fmt.Errorf("chains differ: hcc top level %d, lattigo %d", h.pr.MaxLevel(), p.params.MaxLevel())
	}
	if err := transforms(p, h, 5*reps); err != nil {
		return err
	}
	for _, level := range []int{h.pr.MaxLevel(), 10} {
		// Operands at the level: Lattigo drops primes (its BGV rescale would
		// also divide the plaintext scale; dropping keeps x·y checkable),
		// hcc switches down (GHS 3.2), as its benchmarks do.
		lx, ly := p.x.CopyNew(), p.y.CopyNew()
		p.eval.DropLevel(lx, lx.Level()-level)
		p.eval.DropLevel(ly, ly.Level()-level)
		hx, hy := h.pr.CopyCiphertext(h.x), h.pr.CopyCiphertext(h.y)
		if err := h.ev.SwitchToLevel(hx, level, h.sc); err != nil {
			return err
		}
		if err := h.ev.SwitchToLevel(hy, level, h.sc); err != nil {
			return err
		}
		lOut := lbgv.NewCiphertext(p.params, 1, level)
		lDeg2 := lbgv.NewCiphertext(p.params, 2, level)
		hOut := h.pr.NewCiphertext()
		hDeg2, err := h.ev.TensorNew(hx, hy)
		if err != nil {
			return err
		}
		if err := p.eval.Mul(lx, ly, lDeg2); err != nil {
			return err
		}
		var lMul, hMul, lKS, hKS, hPar []float64
		par := h.pr.NewParallelScratch(workers)
		for r := 0; r < reps; r++ {
			ms, err := timeMs(func() error { return p.eval.MulRelin(lx, ly, lOut) })
			if err != nil {
				return err
			}
			if r == 0 {
				if err := p.check(lOut); err != nil {
					return err
				}
			}
			lMul = append(lMul, ms)
			ms, err = timeMs(func() error { return h.ev.Mul(hx, hy, hOut, h.sc) })
			if err != nil {
				return err
			}
			if hOut.Level() != level {
				return fmt.Errorf("hcc Mul at level %d ran at level %d (noise policy switched down)", level, hOut.Level())
			}
			if r == 0 {
				if err := h.check(hOut); err != nil {
					return err
				}
			}
			hMul = append(hMul, ms)
			ms, err = timeMs(func() error { return p.eval.Relinearize(lDeg2, lOut) })
			if err != nil {
				return err
			}
			if r == 0 {
				if err := p.check(lOut); err != nil {
					return err
				}
			}
			lKS = append(lKS, ms)
			ms, err = timeMs(func() error { return h.ev.Relinearize(hDeg2, hOut, h.sc) })
			if err != nil {
				return err
			}
			if r == 0 {
				if err := h.check(hOut); err != nil {
					return err
				}
			}
			hKS = append(hKS, ms)
			if workers > 1 {
				ms, err = timeMs(func() error { return h.ev.Mul(hx, hy, hOut, par) })
				if err != nil {
					return err
				}
				if r == 0 {
					if err := h.check(hOut); err != nil {
						return err
					}
				}
				hPar = append(hPar, ms)
			}
		}
		fmt.Printf("level %d (%d primes; digits hcc %d, lattigo %d): products checked (lattigo %d slots mod t, hcc %d slots AND)\n",
			level, level+1, h.digitsAt(level), p.params.BaseRNSDecompositionVectorSize(level, p.params.MaxLevelP()),
			len(p.want), len(h.want))
		fmt.Printf("  mul+relin   lattigo median %7.1f ms  hcc median %7.1f ms  ratio hcc/lattigo %.2f; fastest %.1f / %.1f ms = %.2f  (%d reps; lattigo %v, hcc %v)\n",
			median(lMul), median(hMul), median(hMul)/median(lMul), fastest(lMul), fastest(hMul), fastest(hMul)/fastest(lMul), reps, round(lMul), round(hMul))
		fmt.Printf("  relin alone lattigo median %7.1f ms  hcc median %7.1f ms  ratio hcc/lattigo %.2f; fastest %.1f / %.1f ms = %.2f  (%d reps; lattigo %v, hcc %v)\n",
			median(lKS), median(hKS), median(hKS)/median(lKS), fastest(lKS), fastest(hKS), fastest(hKS)/fastest(lKS), reps, round(lKS), round(hKS))
		if workers > 1 {
			fmt.Printf("  extra: hcc mul+relin with key switches on %d goroutines: median %.1f ms (%.2f of lattigo's single-threaded median), fastest %.1f ms  (%v)\n",
				workers, median(hPar), median(hPar)/median(lMul), fastest(hPar), round(hPar))
		}
	}
	return nil
}

// transforms times one forward and one inverse transform of one 59-bit
// prime's row: hcc's Rader transform of length φ(m) = 2^16 (a permutation
// and a cyclic convolution: a forward and an inverse cyclic NTT of length
// 2^16 around a pointwise product) against Lattigo's negacyclic NTT of
// length 2^16. A key switch is
// about the same number of such transforms in both (hcc's count is in
// keyswitch.go), so their ratio explains most of the key switch's.
func transforms(p *peer, h *host, reps int) error {
	n := h.pr.N()
	hr := h.pr.RingQ().Transform(1)
	sub := p.params.RingQ().SubRings[1]
	a := make([]uint64, n)
	la, lb := make([]uint64, n), make([]uint64, n)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range a {
		a[i] = rng.Uint64N(hr.Prime())
		la[i] = rng.Uint64N(sub.Modulus)
	}
	out := make([]uint64, n)
	scratch := make([]uint64, hr.ScratchLen())
	var hf, hi, lf, li []float64
	for r := 0; r < reps; r++ {
		ms, _ := timeMs(func() error { hr.Forward(a, out, scratch); return nil })
		hf = append(hf, ms)
		ms, _ = timeMs(func() error { hr.Inverse(out, a, scratch); return nil })
		hi = append(hi, ms)
		ms, _ = timeMs(func() error { sub.NTT(la, lb); return nil })
		lf = append(lf, ms)
		ms, _ = timeMs(func() error { sub.INTT(lb, la); return nil })
		li = append(li, ms)
	}
	fmt.Printf("one prime's transform (median of %d): hcc Rader forward %.2f ms, inverse %.2f ms; lattigo NTT %.2f ms, INTT %.2f ms; ratio hcc/lattigo %.2f\n",
		reps, median(hf), median(hi), median(lf), median(li), (median(hf)+median(hi))/(median(lf)+median(li)))
	return nil
}

// round rounds every time to 0.1 ms for printing.
func round(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(int(x*10+0.5)) / 10
	}
	return out
}
