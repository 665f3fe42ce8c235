// Command peerbench times Lattigo v5.0.7's LMKCDEY blind rotation
// (he/hebin, eprint 2022/198 Algorithm 3) next to hcc's NAND gates, in one
// run on the same machine. It is a separate module so that hcc never
// depends on Lattigo. Lattigo's outputs are decrypted and checked before its
// time is quoted (v6.1.1's core/rgsw/blindrot is known to decode wrongly
// without a special prime; v5.0.7 is used for that reason).
//
//	go run . [-n 446] [-reps 20]
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/he/hebin"
	"github.com/tuneinsight/lattigo/v5/ring"
	"github.com/tuneinsight/lattigo/v5/utils"
	"github.com/tuneinsight/lattigo/v5/utils/sampling"
)

func main() {
	n := flag.Int("n", 446, "LWE dimension of the timed blind rotation (<= 512)")
	reps := flag.Int("reps", 20, "timed repetitions")
	flag.Parse()
	if err := run(*n, *reps); err != nil {
		fmt.Fprintln(os.Stderr, "peerbench:", err)
		os.Exit(1)
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func run(n, reps int) error {
	// STD128_LMKCDEY_G's ring: N = 1024, the same 28-bit prime, B_g = 2^10.
	paramsBR, err := rlwe.NewParametersFromLiteral(rlwe.ParametersLiteral{LogN: 10, Q: []uint64{268369921}, NTTFlag: true})
	if err != nil {
		return err
	}
	// LWE samples are packed in an RLWE of degree 512 (Lattigo needs a power
	// of two); the timed core rotation uses the first n coefficients.
	paramsLWE, err := rlwe.NewParametersFromLiteral(rlwe.ParametersLiteral{LogN: 9, Q: []uint64{0x3001}, NTTFlag: true})
	if err != nil {
		return err
	}
	skLWE := rlwe.NewKeyGenerator(paramsLWE).GenSecretKeyNew()
	skBR := rlwe.NewKeyGenerator(paramsBR).GenSecretKeyNew()
	t0 := time.Now()
	brk := hebin.GenEvaluationKeyNew(paramsBR, skBR, paramsLWE, skLWE, rlwe.EvaluationKeyParameters{BaseTwoDecomposition: utils.Pointy(10)})
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
		values[i] = -1 + (float64(2*i)+1)/float64(slots) // never 0
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
		return err
	}
	out, err := eval.Evaluate(ct, polys, brk)
	if err != nil {
		return err
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
		return fmt.Errorf("lattigo's blind rotation decodes wrongly (%d/%d): not quoting its time", correct, slots)
	}

	// Timing: BlindRotateCore on n odd coefficients mod 2N.
	a := make([]uint64, n)
	mask := uint64(2*paramsBR.N() - 1)
	for i := range a {
		a[i] = sampling.RandUint64()&mask | 1
	}
	acc := rlwe.NewCiphertext(paramsBR, 1, paramsBR.MaxLevel())
	var lt []float64
	for r := 0; r < reps+1; r++ {
		t := time.Now()
		if err := eval.BlindRotateCore(a, acc, brk); err != nil {
			return err
		}
		if r > 0 {
			lt = append(lt, float64(time.Since(t).Microseconds())/1e3)
		}
	}

	// hcc at STD128_LMKCDEY_G: whole NAND gates (blind rotation + key
	// switching), Signed (w = 7) and LMKCDEY (w = 10).
	p, err := fhew.ParamsByName("STD128_LMKCDEY_G", false)
	if err != nil {
		return err
	}
	lmk, err := p.WithMethod(fhew.MethodLMKCDEY, 10)
	if err != nil {
		return err
	}
	fmt.Printf("lattigo LMKCDEY blind rotation alone, n=%d N=1024 B_g=2^10: median %.2f ms over %d\n", n, median(lt), reps)
	for _, pp := range []fhew.Params{p, lmk} {
		row, err := fhew.MeasureTable3Row(pp, reps, 0)
		if err != nil {
			return err
		}
		fmt.Printf("hcc %-32s NAND (blind rotation + key switch): median %.2f ms (%.2fx lattigo's rotation alone)\n",
			pp.Name(), row.NANDMedianMs, row.NANDMedianMs/median(lt))
	}
	return nil
}
