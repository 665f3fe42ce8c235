package aesbench

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/backend/bgv/bgvaes"
	aescircuit "github.com/hcc-fhe/hcc/circuits/aes"
)

// bgvParams builds a BGV set by name (Toy sets allowed: the bench labels
// them insecure).
func bgvParams(name string) (*bgv.Params, error) {
	lit, err := bgv.LiteralByName(name)
	if err != nil {
		return nil, err
	}
	lit.AllowInsecure = true
	return bgv.NewParams(lit)
}

// isToy reports whether a set name is one of the insecure test sets.
func isToy(name string) bool { return len(name) >= 3 && name[:3] == "Toy" }

// runByteSliced is bgvaes's AES-128 encryption with the key expansion
// homomorphic, on as many blocks as o allows, inputs at the lowest level
// the noise model accepts.
func runByteSliced(o Options, rng *rand.Rand) (Row, error) {
	r := Row{Design: ByteSliced, Name: "BGV byte-sliced (bgvaes, GF(2^8) slots)", Params: o.Ring}
	pr, err := bgvParams(o.Ring)
	if err != nil {
		return r, err
	}
	r.Secure = pr.Secure()
	enc, err := bgv.NewEncoder(pr)
	if err != nil {
		return r, err
	}
	a, err := bgvaes.New(pr, enc)
	if err != nil {
		return r, fmt.Errorf("%s: %w", o.Ring, err)
	}
	level, _, err := a.InputLevel(bgvaes.Encrypt, true)
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(rng.Uint32())
	}
	smp := bgv.NewSamplerFromSeed(seed)
	kg := bgv.NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	ek := bgv.NewEvaluationKeySet(kg.GenRelinKey(sk))
	if err := kg.AddAutoKeys(sk, ek, a.GaloisElements()); err != nil {
		return r, err
	}
	o.Log("byte-sliced %s: keys in %v (relinearization + %d Frobenius keys)", o.Ring, time.Since(t0).Round(time.Millisecond), len(a.GaloisElements()))
	n := a.Blocks()
	if o.Blocks > 0 {
		n = min(n, o.Blocks)
	}
	blocks := randomBlocks(rng, n)
	key := randomBlocks(rng, 1)[0]
	dataPts, err := a.EncodeBlocks(blocks)
	if err != nil {
		return r, err
	}
	keyPts, err := a.EncodeKey(key)
	if err != nil {
		return r, err
	}
	en := bgv.NewSymmetricEncryptor(pr, sk, smp)
	var data, kc [16]*bgv.Ciphertext
	for i := range data {
		if data[i], err = en.EncryptAtLevel(dataPts[i], level); err != nil {
			return r, err
		}
		if kc[i], err = en.EncryptAtLevel(keyPts[i], level); err != nil {
			return r, err
		}
	}
	if err := a.Prepare(bgvaes.Encrypt); err != nil { // the constants, outside the timing
		return r, err
	}
	ev, err := a.NewEvaluator(bgv.NewEvaluator(pr, ek), o.Threads)
	if err != nil {
		return r, err
	}
	o.Log("byte-sliced %s: AES-128 on %d blocks, inputs at level %d, %d threads", o.Ring, n, level, o.Threads)
	t1 := time.Now()
	out, got, err := ev.Encrypt(data, kc)
	r.Latency = time.Since(t1)
	if err != nil {
		return r, err
	}
	de := bgv.NewDecryptor(pr, sk)
	var pts [16]bgv.BinaryPoly
	for i, ct := range out {
		pts[i] = de.Decrypt(ct)
	}
	res, err := a.DecodeBlocks(pts, n)
	if err != nil {
		return r, err
	}
	if err := checkBlocks(key, blocks, res); err != nil {
		return r, err
	}
	r.Blocks, r.Checked = n, n
	r.LevelsPerRound = got.LevelsPerRound()
	size := pr.CiphertextSize(level)
	r.UploadFHE = float64(16*size) / float64(n)
	r.UploadKey = int64(16 * pr.CiphertextSize(pr.MaxLevel())) // hcc.ClientKey.EncryptAESKey: the top level
	r.Note = fmt.Sprintf("inputs at level %d of %d, %v", level, pr.MaxLevel(), got)
	return r, nil
}

// runHCC runs an AES circuit through the hcc package: compile for t,
// keys, encrypt n instances (with input RGSWs when r.InputRGSW), Eval
// (timed), decrypt, check.
func runHCC(ctx context.Context, o Options, rng *rand.Rand, r *Row, v aescircuit.Variant, t hcc.Target, n int) (*hcc.Program, int, error) {
	c, err := aescircuit.Compile(v)
	if err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	p, err := hcc.Compile(hcc.FromCircuit(c), t)
	if err != nil {
		return nil, 0, err
	}
	o.Log("%s: compiled %s for %s/%s in %v: %s", r.Design, c.Name, t.Engine, t.Params, time.Since(t0).Round(time.Millisecond), p.Summary())
	t0 = time.Now()
	ck, sk, err := hcc.GenerateKeys(p)
	if err != nil {
		return nil, 0, err
	}
	o.Log("%s: keys in %v", r.Design, time.Since(t0).Round(time.Millisecond))
	if n <= 0 || n > p.Slots() {
		n = p.Slots()
	}
	key := randomBlocks(rng, 1)[0]
	blocks := randomBlocks(rng, n)
	sets := make([]hcc.Values, n)
	for i, b := range blocks {
		sets[i] = aescircuit.Inputs(key, b)
	}
	in, err := ck.EncryptWith(p, hcc.EncryptOptions{InputRGSW: r.InputRGSW}, sets...)
	if err != nil {
		return nil, 0, err
	}
	if in.HasInputRGSW() != r.InputRGSW {
		return nil, 0, fmt.Errorf("internal error: the inputs carry input RGSWs: %v, asked for: %v", in.HasInputRGSW(), r.InputRGSW)
	}
	data, err := in.MarshalBinary()
	if err != nil {
		return nil, 0, err
	}
	// key and plaintext are 128 of the 256 input bits each
	r.UploadFHE = float64(len(data)) / 2 / float64(n)
	r.UploadKey = int64(len(data) / 2)
	if r.InputRGSW {
		// The transciphering key is sent without input RGSWs (it is
		// ClientKey.EncryptAESKeyFor's): price it from a plain encryption
		// (milliseconds next to the evaluation).
		plain, err := ck.Encrypt(p, sets...)
		if err != nil {
			return nil, 0, err
		}
		pd, err := plain.MarshalBinary()
		if err != nil {
			return nil, 0, err
		}
		r.UploadKey = int64(len(pd) / 2)
	}
	o.Log("%s: %d block(s), %d threads", r.Design, n, o.Threads)
	t1 := time.Now()
	out, stats, err := hcc.Eval(ctx, p, sk, in, hcc.EvalOptions{Threads: o.Threads, ReleaseInputs: true})
	r.Latency = time.Since(t1)
	if err != nil {
		return nil, 0, err
	}
	r.Costly, r.CostName = stats.Costly, stats.CostName
	if stats.CPUKnown {
		r.EvalCPU = stats.CPU
	}
	vals, err := ck.Decrypt(p, out)
	if err != nil {
		return nil, 0, err
	}
	got := make([][16]byte, len(vals))
	for i, v := range vals {
		if got[i], err = aescircuit.Ciphertext(v); err != nil {
			return nil, 0, err
		}
	}
	if err := checkBlocks(key, blocks, got); err != nil {
		return nil, 0, err
	}
	r.Blocks, r.Checked = n, n
	return p, n, nil
}

// runBitSliced is aes128_lowdepth.hdl on BGV through the generic compiler,
// one block per slot.
func runBitSliced(ctx context.Context, o Options, rng *rand.Rand) (Row, error) {
	r := Row{Design: BitSliced, Name: "BGV bit-sliced (aes128_lowdepth.hdl, compiler)", Params: o.Ring}
	pr, err := bgvParams(o.Ring)
	if err != nil {
		return r, err
	}
	r.Secure = pr.Secure()
	p, _, err := runHCC(ctx, o, rng, &r, aescircuit.LowDepth, hcc.Target{Engine: "bgv", Params: o.Ring, Insecure: isToy(o.Ring)}, o.Blocks)
	if err != nil {
		return r, err
	}
	level, err := pr.LevelForCircuit(p.Circuit())
	if err != nil {
		return r, err
	}
	r.LevelsPerRound = float64(level) / 10
	r.Note = fmt.Sprintf("inputs at level %d of %d; %s", level, pr.MaxLevel(), p.Summary())
	return r, nil
}

// runFHEW is aes128.hdl on FHEW: one block, every gate bootstrapped (on
// a wide-table set: every table input circuit-bootstrapped, but those
// built from the input RGSWs when inputRGSW).
func runFHEW(ctx context.Context, o Options, rng *rand.Rand, inputRGSW bool) (Row, error) {
	r := Row{Design: FHEW, Name: "FHEW (aes128.hdl, LUT-mapped, one block)", Params: o.FHEWParams, Secure: !isToy(o.FHEWParams), InputRGSW: inputRGSW}
	if r.InputRGSW {
		r.Name = "FHEW (aes128.hdl, LUT-mapped, one block, client-side input RGSWs)"
	}
	p, _, err := runHCC(ctx, o, rng, &r, aescircuit.Small, hcc.Target{Engine: "fhew", Params: o.FHEWParams, Insecure: isToy(o.FHEWParams)}, 1)
	if err != nil {
		return r, err
	}
	// The evaluation's own count: with input RGSWs it is below the
	// summary's (the table inputs built from them are not bootstrapped),
	// and it is the figure a comparison of the two runs needs.
	r.Note = fmt.Sprintf("%s; the evaluation ran %d %s", p.Summary(), r.Costly, r.CostName)
	if r.InputRGSW {
		r.Note += " with client-side input RGSWs (hcc.EncryptOptions.InputRGSW; the upload per block includes them)"
	}
	return r, nil
}

// runCTR is transciphering end to end through the hcc package: AES-CTR
// records (crypto/cipher) into inputs of the built-in record program, one
// AES evaluation of as many records as o allows, then checked by
// decryption against the plaintext. Its latency against the byte-sliced
// row's is the "within 1.2x the AES time".
func runCTR(ctx context.Context, o Options, rng *rand.Rand) (Row, error) {
	r := Row{Design: CTR, Name: "BGV transcipher (hcc.Transcipher: AES-CTR -> record bits)", Params: o.Ring}
	t := hcc.Target{Engine: "bgv", Params: o.Ring, Insecure: isToy(o.Ring)}
	prog, err := hcc.RecordProgram(t)
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	ck, sk, err := hcc.GenerateKeysWith(prog, hcc.KeyOptions{Transcipher: true})
	if err != nil {
		return r, err
	}
	r.Secure = !isToy(o.Ring)
	o.Log("ctr %s: keys in %v", o.Ring, time.Since(t0).Round(time.Millisecond))
	n := prog.Slots()
	if o.Blocks > 0 {
		n = min(n, o.Blocks)
	}
	key := randomBlocks(rng, 1)[0]
	iv := randomBlocks(rng, 1)[0]
	ak, err := ck.EncryptAESKeyFor(key, prog)
	if err != nil {
		return r, err
	}
	akData, err := ak.MarshalBinary()
	if err != nil {
		return r, err
	}
	msg := make([]byte, 16*n)
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	blk, err := aes.NewCipher(key[:])
	if err != nil {
		return r, err
	}
	upload := make([]byte, len(msg))
	cipher.NewCTR(blk, iv[:]).XORKeyStream(upload, msg)
	o.Log("ctr %s: %d records, %d threads", o.Ring, n, o.Threads)
	t1 := time.Now()
	in, st, err := hcc.Transcipher(ctx, sk, ak, iv, upload, prog, hcc.TranscipherOptions{Threads: o.Threads})
	r.Latency = time.Since(t1)
	if err != nil {
		return r, err
	}
	got, err := ck.DecryptRecords(prog, in)
	if err != nil {
		return r, err
	}
	if !bytes.Equal(got, msg) {
		return r, fmt.Errorf("transciphered records differ from the plaintext")
	}
	inData, err := in.MarshalBinary()
	if err != nil {
		return r, err
	}
	r.Blocks, r.Checked = n, n
	r.UploadFHE = float64(len(inData)) / float64(n) // what the client would send instead: 128 bit ciphertexts per pack
	r.UploadKey = int64(len(akData))
	r.Note = fmt.Sprintf("%d AES evaluation(s), records arrive as 128 bit ciphertexts at level %d; checked by decryption against the plaintext", st.Evaluations, st.Level)
	return r, nil
}
