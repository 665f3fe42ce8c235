// Command peerbench times Lattigo v5.0.7's LMKCDEY blind rotation
// (he/hebin, eprint 2022/198 Algorithm 3) next to hcc's NAND gates, in one
// run on the same machine. It is a separate module so that hcc never
// depends on Lattigo. Lattigo's outputs are decrypted and checked before its
// time is quoted (v6.1.1's core/rgsw/blindrot is known to decode wrongly
// without a special prime; v5.0.7 is used for that reason).
//
// It times two rings: STD128_LMKCDEY_G's (n = 446, Q = 268369921,
// B_g = 2^10, the reference point) and STD128_T's (n = 581,
// Q = 134215681, B_g = 2^9); Lattigo keeps every gadget digit where hcc
// drops the lowest.
//
//	go run . [-reps 50] [-sets STD128_LMKCDEY_G,STD128_T] [-interleave STD128_T]
//
// With -interleave SET, one hcc NAND at SET and one Lattigo rotation per
// ring of -sets are timed in turn in every round, so that all of them see
// the same load on a shared machine (the sequential mode times Lattigo's
// reps first and hcc's afterwards).
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/fhewbench"
	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/he/hebin"
	"github.com/tuneinsight/lattigo/v5/ring"
	"github.com/tuneinsight/lattigo/v5/utils"
	"github.com/tuneinsight/lattigo/v5/utils/sampling"
)

// peerRing is one peer configuration: hcc's set and Lattigo's matching ring.
type peerRing struct {
	set   string
	n     int
	q     uint64
	logBg int
}

var rings = map[string]peerRing{
	"STD128_LMKCDEY_G": {"STD128_LMKCDEY_G", 446, 268369921, 10},
	"STD128_T":         {"STD128_T", 581, 134215681, 9},
}

func main() {
	reps := flag.Int("reps", 50, "timed repetitions")
	sets := flag.String("sets", "STD128_LMKCDEY_G,STD128_T", "hcc parameter sets whose rings are timed in Lattigo")
	inter := flag.String("interleave", "", "hcc parameter set whose default-method NAND is timed round-robin with Lattigo's rotation on every ring of -sets (same load for all)")
	flag.Parse()
	if *inter != "" {
		if err := interleaved(*inter, strings.Split(*sets, ","), *reps); err != nil {
			fmt.Fprintln(os.Stderr, "peerbench:", err)
			os.Exit(1)
		}
		return
	}
	for _, s := range strings.Split(*sets, ",") {
		r, ok := rings[s]
		if !ok {
			fmt.Fprintf(os.Stderr, "peerbench: unknown set %q\n", s)
			os.Exit(2)
		}
		if err := run(r, *reps); err != nil {
			fmt.Fprintln(os.Stderr, "peerbench:", err)
			os.Exit(1)
		}
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func run(r peerRing, reps int) error {
	rotate, err := setupLattigo(r)
	if err != nil {
		return err
	}
	var lt []float64
	for i := 0; i < reps+1; i++ {
		t := time.Now()
		if err := rotate(); err != nil {
			return err
		}
		if i > 0 {
			lt = append(lt, float64(time.Since(t).Microseconds())/1e3)
		}
	}

	// hcc at the same set: whole NAND gates (key switching, blind rotation,
	// extraction), Signed at the set's w and LMKCDEY at w = 10.
	p, err := fhew.ParamsByName(r.set, false)
	if err != nil {
		return err
	}
	lmk, err := p.WithMethod(fhew.MethodLMKCDEY, 10)
	if err != nil {
		return err
	}
	fmt.Printf("lattigo LMKCDEY blind rotation alone, n=%d N=1024 Q=%d B_g=2^%d: median %.2f ms over %d\n", r.n, r.q, r.logBg, median(lt), reps)
	for _, pp := range []fhew.Params{p, lmk} {
		row, err := fhewbench.MeasureTable3Row(pp, reps, 0)
		if err != nil {
			return err
		}
		fmt.Printf("hcc %-28s %-8s w=%-2d NAND (key switch + blind rotation): median %.2f ms (%.2fx lattigo's rotation alone)\n",
			r.set, pp.Method(), pp.Window(), row.NANDMedianMs, row.NANDMedianMs/median(lt))
		if row.WrongNAND > 0 {
			fmt.Printf("    %d of %d timed hcc NAND gates decrypted wrongly\n", row.WrongNAND, reps)
		}
	}
	return nil
}

// setupLattigo generates Lattigo's keys for r, checks that its blind
// rotation decodes 16 signs correctly and returns a function that runs one
// timed core rotation on n odd coefficients.
func setupLattigo(r peerRing) (func() error, error) {
	n := r.n
	// The set's ring: N = 1024, the same prime and gadget base.
	paramsBR, err := rlwe.NewParametersFromLiteral(rlwe.ParametersLiteral{LogN: 10, Q: []uint64{r.q}, NTTFlag: true})
	if err != nil {
		return nil, err
	}
	// LWE samples are packed in an RLWE of degree 512 or 1024 (Lattigo needs
	// a power of two); the timed core rotation uses the first n coefficients.
	logNLWE := 9
	if n > 512 {
		logNLWE = 10
	}
	paramsLWE, err := rlwe.NewParametersFromLiteral(rlwe.ParametersLiteral{LogN: logNLWE, Q: []uint64{0x3001}, NTTFlag: true})
	if err != nil {
		return nil, err
	}
	skLWE := rlwe.NewKeyGenerator(paramsLWE).GenSecretKeyNew()
	skBR := rlwe.NewKeyGenerator(paramsBR).GenSecretKeyNew()
	t0 := time.Now()
	brk := hebin.GenEvaluationKeyNew(paramsBR, skBR, paramsLWE, skLWE, rlwe.EvaluationKeyParameters{BaseTwoDecomposition: utils.Pointy(r.logBg)})
	keygen := time.Since(t0)
	eval := hebin.NewEvaluator(paramsBR, paramsLWE)

	// Correctness: sign of 16 values through Evaluate, decrypted.
	const slots = 16
	scaleLWE := float64(paramsLWE.Q()[0]) / 4
	scaleBR := float64(paramsBR.Q()[0]) / 4
	sign := func(x float64) float64 {
		if x > 0 {
			return 1
		} else if x < 0 {
			return -1
		}
		return 0
	}
	tp := hebin.InitTestPolynomial(sign, rlwe.NewScale(scaleBR), paramsBR.RingQ(), -1, 1)
	polys := map[int]*ring.Poly{}
	pt := rlwe.NewPlaintext(paramsLWE, paramsLWE.MaxLevel())
	values := make([]float64, slots)
	for i := range values {
		// |x| in [1/2, 15/16]: with the scale Q/4 that is a margin of at
		// least 1/8 of the circle, a gate's decision margin (values near 0
		// would test Lattigo's noise more strictly than hcc's gates).
		values[i] = (0.5 + float64(i/2)/16) * float64(1-2*(i%2))
		polys[i] = &tp
		v := values[i] * scaleLWE
		if v < 0 {
			pt.Value.Coeffs[0][i] = paramsLWE.Q()[0] - uint64(-v)
		} else {
			pt.Value.Coeffs[0][i] = uint64(v)
		}
	}
	paramsLWE.RingQ().NTT(pt.Value, pt.Value)
	ct := rlwe.NewCiphertext(paramsLWE, 1, paramsLWE.MaxLevel())
	if err := rlwe.NewEncryptor(paramsLWE, skLWE).Encrypt(pt, ct); err != nil {
		return nil, err
	}
	out, err := eval.Evaluate(ct, polys, brk)
	if err != nil {
		return nil, err
	}
	dec := rlwe.NewDecryptor(paramsBR, skBR)
	ptBR := rlwe.NewPlaintext(paramsBR, paramsBR.MaxLevel())
	q := paramsBR.Q()[0]
	correct := 0
	for i := 0; i < slots; i++ {
		dec.Decrypt(out[i], ptBR)
		if ptBR.IsNTT {
			paramsBR.RingQ().INTT(ptBR.Value, ptBR.Value)
		}
		c := ptBR.Value.Coeffs[0][0]
		a := float64(c) / scaleBR
		if c >= q/2 {
			a = -float64(q-c) / scaleBR
		}
		if math.Round(a) == sign(values[i]) {
			correct++
		}
	}
	fmt.Printf("lattigo v5.0.7 hebin: %d/%d signs decode correctly; key generation %.2f s\n", correct, slots, keygen.Seconds())
	if correct != slots {
		return nil, fmt.Errorf("lattigo's blind rotation decodes wrongly (%d/%d): not quoting its time", correct, slots)
	}

	// Timing: BlindRotateCore on n odd coefficients mod 2N.
	a := make([]uint64, n)
	mask := uint64(2*paramsBR.N() - 1)
	for i := range a {
		a[i] = sampling.RandUint64()&mask | 1
	}
	acc := rlwe.NewCiphertext(paramsBR, 1, paramsBR.MaxLevel())
	return func() error { return eval.BlindRotateCore(a, acc, brk) }, nil
}

// interleaved times, in each of reps rounds, one Lattigo core rotation per
// ring of sets and one hcc NAND gate at hccSet (its default method and
// window), so that every measurement sees the same machine load; it prints
// the medians and hcc's ratio to each. Every hcc NAND output is decrypted.
func interleaved(hccSet string, sets []string, reps int) error {
	var rots []func() error
	for _, s := range sets {
		r, ok := rings[s]
		if !ok {
			return fmt.Errorf("unknown set %q", s)
		}
		rot, err := setupLattigo(r)
		if err != nil {
			return err
		}
		rots = append(rots, rot)
	}
	p, err := fhew.ParamsByName(hccSet, false)
	if err != nil {
		return err
	}
	sk, err := fhew.NewSecretKey(p)
	if err != nil {
		return err
	}
	ek, err := fhew.GenEvaluationKey(sk)
	if err != nil {
		return err
	}
	ev, err := fhew.NewEvaluator(p, ek)
	if err != nil {
		return err
	}
	enc, err := fhew.NewEncryptor(sk)
	if err != nil {
		return err
	}
	sc := fhew.NewScratch(p)
	x, y, out := enc.EncryptNew(1), enc.EncryptNew(0), fhew.NewCiphertext(p)
	lt := make([][]float64, len(rots))
	var ht []float64
	wrong := 0
	for i := 0; i < reps+1; i++ {
		for k, rot := range rots {
			t := time.Now()
			if err := rot(); err != nil {
				return err
			}
			if i > 0 {
				lt[k] = append(lt[k], float64(time.Since(t).Microseconds())/1e3)
			}
		}
		t := time.Now()
		ev.NAND(x, y, out, sc)
		if i > 0 {
			ht = append(ht, float64(time.Since(t).Microseconds())/1e3)
		}
		if b, err := sk.Decrypt(out); err != nil || b != 1 {
			wrong++
		}
	}
	fmt.Printf("interleaved, %d rounds: hcc %s %s w=%d NAND (key switch + blind rotation) median %.2f ms; %d wrong\n",
		reps, hccSet, p.Method(), p.Window(), median(ht), wrong)
	for k, s := range sets {
		r := rings[s]
		fmt.Printf("  lattigo LMKCDEY blind rotation alone, n=%d N=1024 Q=%d B_g=2^%d: median %.2f ms; hcc NAND / lattigo = %.2fx\n",
			r.n, r.q, r.logBg, median(lt[k]), median(ht)/median(lt[k]))
	}
	if wrong > 0 {
		return fmt.Errorf("%d of %d hcc NAND gates decrypted wrongly", wrong, reps+1)
	}
	return nil
}
