package cbs_test

import (
	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// The NAND of a named fhew set (the default STD128_LOWFAIL_T is the unit)
// for the benchmarks' ratios (bench_test.go's NANDForBench explains the indirection).
func init() {
	cbs.NANDForBench = func(set string) (func(), error) {
		p, err := fhew.ParamsByName(set, false)
		if err != nil {
			return nil, err
		}
		sk, err := fhew.NewSecretKey(p)
		if err != nil {
			return nil, err
		}
		ek, err := fhew.GenEvaluationKey(sk)
		if err != nil {
			return nil, err
		}
		ev, err := fhew.NewEvaluator(p, ek)
		if err != nil {
			return nil, err
		}
		enc, err := fhew.NewEncryptor(sk)
		if err != nil {
			return nil, err
		}
		sc := fhew.NewScratch(p)
		a, b, out := enc.EncryptNew(1), enc.EncryptNew(0), fhew.NewCiphertext(p)
		return func() { ev.NAND(a, b, out, sc) }, nil
	}
}
