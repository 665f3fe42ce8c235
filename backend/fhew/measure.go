package fhew

import (
	"fmt"
	"math"
)

// Hooks for measuring the scheme from outside the package (the paper's
// Table 3 and Figure 2 live in fhewbench): the raw sums of a noise
// measurement, which goroutines measuring shares of the samples add up, the
// Gaussian failure probability at a given noise level, and the two kernels
// of a blind rotation, to time them one at a time. They expose no key
// material and no internal layout.

// NoiseSums are the raw sums of a noise measurement (see MeasureNoise):
// sums over disjoint samples on the same key set add field by field (Add),
// so several goroutines can each measure a share and Measurement combines
// them into one NoiseMeasurement.
type NoiseSums struct {
	// Samples is the number of two-input sums measured.
	Samples int
	// Output2 is the sum of the squared errors of the 2·Samples bootstrapped
	// ciphertexts, Gate2 that of the Samples two-input sums at the
	// blind-rotation input, in circle units.
	Output2, Gate2 float64
	// Automorphisms and Bootstraps count the bootstraps' automorphisms and
	// the bootstraps (fresh random α each time, so their ratio estimates
	// Theorems 1-2).
	Automorphisms, Bootstraps int
}

// Add adds the sums of another share of samples to s.
func (s *NoiseSums) Add(t NoiseSums) {
	s.Samples += t.Samples
	s.Output2 += t.Output2
	s.Gate2 += t.Gate2
	s.Automorphisms += t.Automorphisms
	s.Bootstraps += t.Bootstraps
}

// Measurement turns the sums into standard deviations and the failure
// probability at p's margin; with no samples it is the zero measurement.
func (s NoiseSums) Measurement(p Params) NoiseMeasurement {
	if s.Samples < 1 {
		return NoiseMeasurement{}
	}
	m := NoiseMeasurement{Samples: s.Samples, OutputStd: math.Sqrt(s.Output2 / float64(2*s.Samples)),
		GateStd: math.Sqrt(s.Gate2 / float64(s.Samples))}
	m.Log2Failure = p.FailureLog2AtStd(m.GateStd)
	return m
}

// FailureLog2AtStd returns log2 P(|e| > 1/(2P)) for a centred Gaussian
// error e of standard deviation std (circle units): the failure probability
// of a two-input gate whose blind-rotation input has that noise.
func (p Params) FailureLog2AtStd(std float64) float64 { return log2GaussTail(p.margin() / std) }

// SumNoise bootstraps 2·count fresh encryptions under sk and sums their
// squared output errors, then forms count two-input sums of those outputs
// and sums the squared errors at the blind-rotation input, decrypting with
// sk. done, if not nil, is called after each sample. count 0 gives zero
// sums (a goroutine's empty share).
func SumNoise(sk *SecretKey, ev *Evaluator, count int, done func()) (NoiseSums, error) {
	ns := NoiseSums{Samples: count}
	p := ev.params
	if !sk.params.lit.sameScheme(p.lit) {
		return NoiseSums{}, fmt.Errorf("fhew: secret key is for %q, evaluator for %q", sk.params.lit.Name, p.lit.Name)
	}
	if count < 0 {
		return NoiseSums{}, fmt.Errorf("fhew: negative noise sample count %d", count)
	}
	enc, err := NewEncryptor(sk)
	if err != nil {
		return NoiseSums{}, err
	}
	sc := NewScratch(p)
	x, y := NewCiphertext(p), NewCiphertext(p)
	qks, M := float64(p.qks), p.M
	for i := 0; i < count; i++ {
		bx, by := i&1, (i>>1)&1
		ev.Bootstrap(enc.EncryptNew(bx), x, sc)
		ev.Bootstrap(enc.EncryptNew(by), y, sc)
		for _, e := range []float64{float64(sk.NoiseOf(x, bx)), float64(sk.NoiseOf(y, by))} {
			ns.Output2 += e * e / (qks * qks)
		}
		in := [2]*Ciphertext{x, y}
		combine(p.params, in[:], []int8{1, 1}, 0, sc)
		beta := prepareBlindRotation(p.params, ev.ek.ksk, sc)
		phase := beta
		for j, a := range sc.alpha {
			phase += int(a) * int(sk.s[j])
		}
		d := ((phase-(bx+by)*M/p.slots)%M + M) % M
		if d >= M/2 {
			d -= M
		}
		e := float64(d) / float64(M)
		ns.Gate2 += e * e
		if done != nil {
			done()
		}
	}
	ns.Automorphisms, ns.Bootstraps = sc.Automorphisms()
	return ns, nil
}

// BlindRotationKernels returns two functions that each run one kernel of
// the blind rotation on sc's accumulator, for timing them apart: one
// external product with the RGSW key of coefficient 0, and one automorphism
// ψ_g with key switching by ak_g (nil for GINX, which has none). The
// accumulator is first filled with arbitrary residues: the kernels' cost
// does not depend on the values, and sc is left holding garbage, so use a
// scratch of its own. Neither function allocates.
func (ev *Evaluator) BlindRotationKernels(sc *Scratch) (externalProductOnce, automorphismOnce func()) {
	p := ev.params
	for i := range sc.accB {
		sc.accB[i] = uint32(i*2654435761) % p.Q
		sc.accA[i] = uint32(i*40503+7) % p.Q
	}
	key := ev.ek.BlindRotationKey(0, false)
	externalProductOnce = func() { externalProduct(p.params, sc.accB, sc.accA, key, sc) }
	if p.lit.Method.usesAutomorphisms() {
		automorphismOnce = func() { automorphism(p.params, sc.accB, sc.accA, p.autoIndex[1], ev.ek.auto[1], sc) }
	}
	return externalProductOnce, automorphismOnce
}
