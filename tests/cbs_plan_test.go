package tests

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
	"github.com/hcc-fhe/hcc/circuits/aes"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/optimize"
)

// Wide plans (optimize.MapWide) executed encrypted by backend/fhew/cbs.

type cbsKit struct {
	p   cbs.Params
	sk  *cbs.SecretKey
	ev  *cbs.Evaluator
	enc *cbs.Encryptor
}

func newCBSKit(t testing.TB, lit cbs.ParamsLiteral) *cbsKit {
	t.Helper()
	p, err := cbs.NewParamsInsecure(lit)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := cbs.NewSecretKey(p)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := cbs.GenEvaluationKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := cbs.NewEvaluator(ek)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := cbs.NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	return &cbsKit{p: p, sk: sk, ev: ev, enc: enc}
}

// runPlan encrypts bits, evaluates plan and decrypts.
func (k *cbsKit) runPlan(t testing.TB, plan *ir.WidePlan, bits []bool, threads int) []bool {
	t.Helper()
	in, err := k.enc.EncryptBits(bits)
	if err != nil {
		t.Fatal(err)
	}
	out, err := k.ev.EvalPlan(context.Background(), plan, in, cbs.EvalOptions{Threads: threads, Batch: envInt("HCC_CBS_BATCH", 0)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.sk.DecryptBits(out)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestCBSPlanCmp32 maps cmp32 (<, ==, max of 32-bit words) to a wide plan
// with the toy set's MaxTerms and runs it encrypted on random words,
// against the circuit's plaintext evaluation.
func TestCBSPlanCmp32(t *testing.T) {
	c, err := lang.CompileFile("testdata/muxheavy.hdl", lang.Options{Circuit: "cmp32"})
	if err != nil {
		t.Fatal(err)
	}
	k := newCBSKit(t, cbs.ToyCBS)
	plan, err := optimize.MapWide(c, optimize.WideOptions{MaxTerms: min(k.p.MaxTerms(-50), 64)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cmp32: %v", plan.Stats())
	rng := rand.New(rand.NewPCG(31, 32))
	for rep := 0; rep < 2; rep++ {
		bits := make([]bool, c.NumInputBits())
		in := make([]uint64, len(bits))
		for i := range bits {
			bits[i] = rng.IntN(2) == 1
			if bits[i] {
				in[i] = 1
			}
		}
		want := c.EvalBits(in)
		got := k.runPlan(t, plan, bits, 2)
		for o := range want {
			if got[o] != (want[o]&1 == 1) {
				t.Fatalf("output bit %d: encrypted %v, circuit %v", o, got[o], want[o]&1)
			}
		}
	}
}

// TestCBSEncryptedAES runs aes128.hdl mapped to a wide plan (200 S-box
// tables) encrypted at STD128_CBS on 2 threads and checks FIPS-197 C.1;
// it reports the wall time and its ratio to fhew's NAND at
// STD128_LOWFAIL_T, timed just before and after in the same process.
// Opt-in (about a minute, ~0.5 GB; HCC_CBS_THREADS=n sets the workers,
// HCC_CBS_BATCH=k the bootstraps a worker runs in lockstep):
//
//	HCC_CBS_AES=1 go test ./tests -run CBSEncryptedAES -v -timeout 60m
func TestCBSEncryptedAES(t *testing.T) {
	if os.Getenv("HCC_CBS_AES") != "1" {
		t.Skip("set HCC_CBS_AES=1 to run AES-128 encrypted with circuit bootstrapping")
	}
	a := newAESRun(t)
	nand := nandTime(t, 20)
	t1 := time.Now()
	got := a.k.runPlan(t, a.plan, a.bits, a.threads)
	wall := time.Since(t1)
	nand = (nand + nandTime(t, 20)) / 2
	t.Logf("AES-128 encrypted: %.1f s wall on %d threads; NAND %.2f ms; AES/NAND %.0f", wall.Seconds(), a.threads, nand.Seconds()*1e3, wall.Seconds()/nand.Seconds())
	a.checkFIPS(t, got)
}

// TestCBSEncryptedAESInputRGSW is TestCBSEncryptedAES with client-side
// RGSW inputs (cbs.EvalOptions.InputRGSW): the client also encrypts every
// input bit as an RGSW, and the plan's forms that read only input bits
// (round 1's p_i ⊕ k_i, the key schedule's first SubWord) are built from
// them by external products instead of circuit bootstraps. It checks
// FIPS-197 C.1 and reports the wall time, the bootstraps run, the client's
// RGSW encryption time and size, and the ratio to fhew's NAND. Opt-in like
// TestCBSEncryptedAES; both run, one after the other, with
//
//	HCC_CBS_AES=1 go test ./tests -run CBSEncryptedAES -v -timeout 60m
func TestCBSEncryptedAESInputRGSW(t *testing.T) {
	if os.Getenv("HCC_CBS_AES") != "1" {
		t.Skip("set HCC_CBS_AES=1 to run AES-128 encrypted with circuit bootstrapping and input RGSWs")
	}
	a := newAESRun(t)
	k := a.k
	in, err := k.enc.EncryptBits(a.bits)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	rg, err := k.enc.EncryptInputRGSW(a.bits)
	if err != nil {
		t.Fatal(err)
	}
	encTime := time.Since(t0)
	var ran, total int
	opt := cbs.EvalOptions{Threads: a.threads, Batch: envInt("HCC_CBS_BATCH", 0), InputRGSW: rg,
		Progress: func(done, tot int) { ran, total = done, tot }}
	nand := nandTime(t, 20)
	t1 := time.Now()
	outCT, err := k.ev.EvalPlan(context.Background(), a.plan, in, opt)
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(t1)
	nand = (nand + nandTime(t, 20)) / 2
	got, err := k.sk.DecryptBits(outCT)
	if err != nil {
		t.Fatal(err)
	}
	forms := a.plan.Stats().DistinctIn
	t.Logf("AES-128 encrypted with input RGSWs: %.1f s wall on %d threads, %d CBS (of %d forms; %d from input RGSWs); "+
		"NAND %.2f ms; AES/NAND %.0f; client RGSW encryption %.2f s, %d KiB per input bit (%d bits)",
		wall.Seconds(), a.threads, ran, forms, forms-total, nand.Seconds()*1e3,
		wall.Seconds()/nand.Seconds(), encTime.Seconds(), rg[0].SizeBytes()>>10, len(rg))
	if ran != total {
		t.Fatalf("%d of %d bootstraps reported", ran, total)
	}
	a.checkFIPS(t, got)
}

// aesRun is the common part of the encrypted AES tests: aes128 mapped to a
// wide plan at STD128_CBS with its keys, FIPS-197 C.1's inputs packed, and
// the worker count (2, or HCC_CBS_THREADS).
type aesRun struct {
	c       *ir.Circuit
	k       *cbsKit
	plan    *ir.WidePlan
	bits    []bool
	threads int
}

func newAESRun(t *testing.T) *aesRun {
	t.Helper()
	c, err := aes.Compile(aes.Small)
	if err != nil {
		t.Fatal(err)
	}
	k := newCBSKit(t, cbs.STD128_CBS)
	t0 := time.Now()
	plan, err := optimize.MapWide(c, optimize.WideOptions{MaxTerms: k.p.MaxTerms(-50)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mapping %.1f s: %v", time.Since(t0).Seconds(), plan.Stats())
	bits, err := c.PackInputs(aes.Inputs(block(t, fips197[0]), block(t, fips197[1])))
	if err != nil {
		t.Fatal(err)
	}
	return &aesRun{c: c, k: k, plan: plan, bits: bits, threads: envInt("HCC_CBS_THREADS", 2)}
}

// checkFIPS fails t unless the decrypted output bits are FIPS-197 C.1's
// ciphertext.
func (a *aesRun) checkFIPS(t *testing.T, got []bool) {
	t.Helper()
	out, err := a.c.UnpackOutputs(got)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := aes.Ciphertext(out)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(ct[:]) != fips197[2] {
		t.Fatalf("AES: %x, FIPS-197 %s", ct, fips197[2])
	}
}

// envInt returns the positive integer in the environment variable name, or
// def when it is unset or not a positive integer.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// nandTime returns the mean time of n NANDs at STD128_LOWFAIL_T (one thread).
func nandTime(t testing.TB, n int) time.Duration {
	t.Helper()
	p, err := fhew.NewParams(fhew.STD128_LOWFAIL_T)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := fhew.NewSecretKey(p)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := fhew.GenEvaluationKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := fhew.NewEvaluator(p, ek)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := fhew.NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	a, b, out := enc.EncryptNew(1), enc.EncryptNew(0), fhew.NewCiphertext(p)
	sc := fhew.NewScratch(p)
	ev.NAND(a, b, out, sc)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ev.NAND(a, b, out, sc)
	}
	return time.Since(t0) / time.Duration(n)
}
