package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hcc-fhe/hcc"
)

// transcipherFlags are the flags of hcc transcipher and of hcc decrypt's
// records mode.
type transcipherFlags struct {
	w          workflowFlags
	aesKey     string // encrypt-key: HEX; eval: the encrypted key FILE
	aesKeyFile string // encrypt-key: the AES key read from a file
	iv         string
	length     int // decrypt: trim the records to this many bytes
}

func transcipherCommand() *command {
	f := &transcipherFlags{}
	return &command{
		name: "transcipher", args: "encrypt-key [PROGRAM] | eval [PROGRAM] DATA.aes", nargs: 3, minArgs: 1,
		doc: "turn AES-128-CTR data into hcc ciphertexts, one 16-byte record per instance (encrypt-key: client; eval: server)",
		run: func(e *cmdEnv) error { return runTranscipher(e, f) },
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			circuitFlags(fs, e)
			fs.StringVar(&f.w.key, "key", "", "encrypt-key: secret key `FILE` (DIR/secret.key from hcc keygen --transcipher)")
			fs.StringVar(&f.w.evalKey, "eval-key", "", "eval: evaluation key `FILE` (DIR/eval.key from hcc keygen --transcipher)")
			fs.StringVar(&f.aesKey, "aes-key", "", "encrypt-key: the AES-128 key as 32 hex digits (or use --aes-key-file); eval: the encrypted key `FILE` from encrypt-key")
			fs.StringVar(&f.aesKeyFile, "aes-key-file", "", "encrypt-key: read the AES-128 key from `FILE` (32 hex digits, or 16 raw bytes), keeping it off the command line")
			fs.StringVar(&f.iv, "iv", "", "eval: the initial counter block as 32 hex digits (openssl enc -iv; incremented as a 128-bit big-endian integer per block)")
			threadsFlag(fs, &f.w)
			outFlag(fs, e, "write the encrypted AES key (encrypt-key) or the transciphered records (eval) to `FILE`")
		},
	}
}

func runTranscipher(e *cmdEnv, f *transcipherFlags) error {
	sub := e.args[0]
	rest := *e
	rest.args = e.args[1:]
	switch sub {
	case "encrypt-key":
		if len(rest.args) > 1 {
			return fmt.Errorf("encrypt-key takes at most one PROGRAM argument, got %q", rest.args)
		}
		return runEncryptAESKey(&rest, f)
	case "eval":
		if len(rest.args) == 0 {
			return fmt.Errorf("eval: missing the AES-CTR data file (transcipher eval [PROGRAM] DATA.aes)")
		}
		return runTranscipherEval(&rest, f)
	}
	return fmt.Errorf("unknown transcipher step %q (want encrypt-key or eval)", sub)
}

// parseHex16 reads 16 bytes given as 32 hex digits.
func parseHex16(what, s string) ([16]byte, error) {
	var out [16]byte
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(s), "0x"))
	if err != nil || len(b) != 16 {
		return out, fmt.Errorf("%s %q: want 32 hex digits (16 bytes)", what, s)
	}
	copy(out[:], b)
	return out, nil
}

// readAESKey is the AES key of --aes-key or --aes-key-file.
func (f *transcipherFlags) readAESKey() ([16]byte, error) {
	switch {
	case f.aesKey != "" && f.aesKeyFile != "":
		return [16]byte{}, fmt.Errorf("--aes-key and --aes-key-file exclude each other")
	case f.aesKeyFile != "":
		data, err := readLimited(f.aesKeyFile, "AES key file", maxSecretFile, false)
		if err != nil {
			return [16]byte{}, err
		}
		if len(data) == 16 {
			var k [16]byte
			copy(k[:], data)
			return k, nil
		}
		k, err := parseHex16("AES key in "+f.aesKeyFile, string(data))
		if err != nil {
			return k, fmt.Errorf("%s: want 32 hex digits or 16 raw bytes (%d bytes read)", f.aesKeyFile, len(data))
		}
		return k, nil
	case f.aesKey != "":
		return parseHex16("--aes-key", f.aesKey)
	}
	return [16]byte{}, fmt.Errorf("missing --aes-key HEX (or --aes-key-file FILE)")
}

// recordProgram is the PROGRAM argument compiled for the key's set, or the
// built-in record program without one.
func recordProgram(e *cmdEnv, w *workflowFlags, engine, params string, server bool, check func(*hcc.Program) error) (*hcc.Program, error) {
	t := w.target(e, engine, params, true) // the key's set: chosen at keygen
	if len(e.args) == 0 {
		p, err := hcc.RecordProgram(t)
		if err != nil {
			return nil, err
		}
		if check != nil {
			return p, check(p)
		}
		return p, nil
	}
	return program(e, t, server, check)
}

func runEncryptAESKey(e *cmdEnv, f *transcipherFlags) error {
	if e.out == "" {
		return fmt.Errorf("missing -o FILE for the encrypted AES key")
	}
	key, err := f.readAESKey()
	if err != nil {
		return err
	}
	if err := hcc.CheckWritable(e.out, append([]string{f.w.key}, e.args...)...); err != nil {
		return err
	}
	ck, err := readClientKey(e, f.w.key)
	if err != nil {
		return err
	}
	t0 := time.Now()
	var ak *hcc.AESKey
	if len(e.args) == 1 {
		p, err := program(e, f.w.target(e, ck.Engine(), ck.Params(), true), false, nil)
		if err != nil {
			return err
		}
		e.warnInsecure(ck)
		ak, err = ck.EncryptAESKeyFor(key, p)
		if err != nil {
			return err
		}
	} else {
		e.warnInsecure(ck)
		if ak, err = ck.EncryptAESKey(key); err != nil {
			return err
		}
	}
	data, err := ak.MarshalBinary()
	if err != nil {
		return err
	}
	mb, err := writeOutput(e.out, data)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "encrypted the AES key under key %v in %v: %s (%.1f MB, for the server)\n",
		ck.KeyID(), time.Since(t0).Round(time.Millisecond), e.out, mb)
	return nil
}

func runTranscipherEval(e *cmdEnv, f *transcipherFlags) error {
	if e.out == "" {
		return fmt.Errorf("missing -o FILE for the transciphered records")
	}
	if f.w.threads < 1 {
		return fmt.Errorf("--threads must be at least 1, got %d", f.w.threads)
	}
	if f.iv == "" {
		return fmt.Errorf("missing --iv HEX (the initial counter block given to openssl enc -iv)")
	}
	iv, err := parseHex16("--iv", f.iv)
	if err != nil {
		return err
	}
	if f.aesKey == "" {
		return fmt.Errorf("missing --aes-key FILE (the encrypted AES key from hcc transcipher encrypt-key)")
	}
	if f.w.evalKey == "" {
		return fmt.Errorf("missing --eval-key DIR/eval.key")
	}
	dataPath := e.args[len(e.args)-1]
	data, err := readLimited(dataPath, "AES-CTR data", maxTranscipher, false)
	if err != nil {
		return err
	}
	if err := hcc.CheckWritable(e.out, append([]string{f.aesKey, f.w.evalKey}, e.args...)...); err != nil {
		return err
	}
	ak, err := hcc.ReadAESKeyFile(f.aesKey)
	if err != nil {
		return err
	}
	sk, err := hcc.ReadServerKeyFile(f.w.evalKey)
	if err != nil {
		return err
	}
	pe := *e
	pe.args = e.args[:len(e.args)-1]
	p, err := recordProgram(&pe, &f.w, sk.Engine(), sk.Params(), true, nil)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e.warnInsecure(sk)
	cts, st, err := hcc.Transcipher(ctx, sk, ak, iv, data, p, hcc.TranscipherOptions{Threads: f.w.threads})
	if err != nil {
		return err
	}
	enc, err := cts.MarshalBinary()
	if err != nil {
		return err
	}
	mb, err := writeOutput(e.out, enc)
	if err != nil {
		return err
	}
	tail := ""
	if r := len(data) % hcc.RecordBytes; r != 0 {
		tail = fmt.Sprintf("; the last record holds %d data bytes (decrypt --length %d trims the rest)", r, len(data))
	}
	levels := ""
	if st.Level >= 0 {
		levels = fmt.Sprintf(", records at level %d (%s's inputs need %d)", st.Level, p.Name(), st.NeedLevel)
	}
	fmt.Fprintf(e.stderr, "transciphered %d bytes (%d records of 16 bytes, %d AES evaluation(s) of %d slots%s) for %s in %v: %s (%.1f MB)%s\n",
		len(data), st.Records, st.Evaluations, sk.Slots(), levels, p.Name(), st.Wall.Round(time.Millisecond), e.out, mb, tail)
	return nil
}

// runDecryptRecords is hcc decrypt -o: the records of a ciphertext file
// whose layout is one 16-byte record (transciphered inputs, or outputs of a
// program with a 128-bit or u8[16] output) written as bytes.
func runDecryptRecords(e *cmdEnv, w *workflowFlags, length int) error {
	if e.out == "" {
		return fmt.Errorf("missing -o FILE for the decrypted records (without it, name the CIRCUIT to print its outputs)")
	}
	if length < 0 {
		return fmt.Errorf("--length %d: want at least 0", length)
	}
	if err := hcc.CheckWritable(e.out, append([]string{w.key}, e.args...)...); err != nil {
		return err
	}
	ck, err := readClientKey(e, w.key)
	if err != nil {
		return err
	}
	path := e.args[len(e.args)-1]
	c, err := hcc.ReadCiphertextsFile(path)
	if err != nil {
		return err
	}
	pe := *e
	pe.args = e.args[:len(e.args)-1]
	check := func(p *hcc.Program) error {
		if c.Outputs() {
			return ck.CheckOutputs(p, c)
		}
		return nil // DecryptRecords checks inputs against p
	}
	p, err := recordProgram(&pe, w, ck.Engine(), ck.Params(), false, check)
	if err != nil {
		return err
	}
	recs, err := ck.DecryptRecords(p, c)
	if err != nil {
		return fmt.Errorf("decrypting %s: %w", path, err)
	}
	if length > 0 {
		if length > len(recs) || length <= len(recs)-hcc.RecordBytes {
			return fmt.Errorf("--length %d does not fit the %d records (%d bytes) of %s", length, len(recs)/hcc.RecordBytes, len(recs), path)
		}
		recs = recs[:length]
	}
	if _, err := writeOutput(e.out, recs); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "decrypted %d records: %d bytes to %s\n", c.Instances(), len(recs), e.out)
	return nil
}
