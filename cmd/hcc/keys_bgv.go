package main

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/ir"
)

// bgvKeygenDefault is keygen's BGV set without --params: keygen sees no
// circuit, so it takes the deepest secure set (AND-depth 41, 2048 slots);
// pass --params M8191 for circuits of AND-depth <= 6 (about 30 times
// faster per gate).
const bgvKeygenDefault = "M65537"

// genBGVKeys draws a BGV key pair (secret key, relinearization key).
func (w *workflowFlags) genBGVKeys() (params string, secret, eval []byte, err error) {
	if w.params == "" {
		w.params = bgvKeygenDefault
	}
	pr, err := w.bgvParams(0, 0)
	if err != nil {
		return "", nil, nil, err
	}
	sk, keys := newBGVKeys(pr)
	if secret, err = pr.MarshalSecretKey(sk); err != nil {
		return "", nil, nil, err
	}
	if eval, err = pr.MarshalEvaluationKeys(keys); err != nil {
		return "", nil, nil, err
	}
	return pr.Name(), secret, eval, nil
}

func readBGVSecretKey(kf *keyFile) (*bgvClient, error) {
	pr, err := bgvParamsByName(kf.params)
	if err != nil {
		return nil, err
	}
	sk, err := pr.ReadSecretKey(kf.body)
	if err != nil {
		return nil, err
	}
	return newBGVClient(pr, sk)
}

func readBGVEvalKey(kf *keyFile) (*bgvServer, error) {
	pr, err := bgvParamsByName(kf.params)
	if err != nil {
		return nil, err
	}
	keys, err := pr.ReadEvaluationKeys(kf.body)
	if err != nil {
		return nil, err
	}
	return &bgvServer{bgvCodec{pr}, bgv.NewEvaluator(pr, keys)}, nil
}

// bgvCodec encodes BGV ciphertexts (bgv.Params.AppendCiphertext). A file
// holds ciphertexts of one size, so ciphertexts above the lowest level among
// them are switched down (on copies) first.
type bgvCodec struct{ pr *bgv.Params }

func (c bgvCodec) slots() int { return c.pr.Slots() }

func (c bgvCodec) encode(cts []backend.Ciphertext) (int, [][]byte, error) {
	level := c.pr.MaxLevel()
	list := make([]*bgv.Ciphertext, len(cts))
	for i, ct := range cts {
		x, ok := ct.(*bgv.Ciphertext)
		if !ok {
			return 0, nil, fmt.Errorf("internal error: ciphertext %d is %T, not BGV", i, ct)
		}
		list[i] = x
		level = min(level, x.Level())
	}
	ev := bgv.NewEvaluator(c.pr, nil)
	sc := c.pr.NewScratch()
	size := c.pr.CiphertextSize(level)
	out := make([][]byte, len(list))
	for i, x := range list {
		if x.Level() > level {
			x = c.pr.CopyCiphertext(x)
			if err := ev.SwitchToLevel(x, level, sc); err != nil {
				return 0, nil, fmt.Errorf("ciphertext %d: %w", i, err)
			}
		}
		var err error
		if out[i], err = c.pr.AppendCiphertext(make([]byte, 0, size), x); err != nil {
			return 0, nil, fmt.Errorf("ciphertext %d: %w", i, err)
		}
	}
	return size, out, nil
}

func (c bgvCodec) decode(data []byte) (backend.Ciphertext, error) { return c.pr.DecodeCiphertext(data) }

// bgvServer is a BGV evaluation key with its evaluator.
type bgvServer struct {
	bgvCodec
	ev *bgv.Evaluator
}

// compile lowers c's AND-depth (compileBGV) and checks it against the chain.
func (s *bgvServer) compile(e *cmdEnv, c *ir.Circuit) (*ir.Circuit, error) {
	d, err := compileBGV(e, c)
	if err != nil {
		return nil, err
	}
	if err := s.pr.CheckCircuit(d); err != nil {
		return nil, err
	}
	return d, nil
}

// eval runs the compiled circuit d and switches the outputs to level 0 (the
// smallest encoding; decryption needs nothing more).
func (s *bgvServer) eval(e *cmdEnv, w *workflowFlags, d *ir.Circuit, in []backend.Ciphertext) ([]backend.Ciphertext, error) {
	outs, err := runBGV(e, w, d, s.ev, in)
	if err != nil {
		return nil, err
	}
	sc := s.pr.NewScratch()
	for i, ct := range outs {
		x := s.pr.CopyCiphertext(ct.(*bgv.Ciphertext))
		if err := s.ev.SwitchToLevel(x, 0, sc); err != nil {
			return nil, fmt.Errorf("output bit %d: %w", i, err)
		}
		outs[i] = x
	}
	return outs, nil
}
