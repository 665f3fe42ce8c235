package bgv

import (
	"context"
	"math/rand/v2"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// TestRunMemoryM65537 runs a circuit on the bit-sliced executor at M65537
// the way `hcc run --backend bgv` does (optimize.ForDepth, relinearization
// key only, the runtime with two threads) and writes a heap profile taken
// at the largest live heap seen, to find what holds the memory:
//
//	HCC_BGV_MEMPROFILE=/tmp/bgv.heap go test ./backend/bgv -run TestRunMemoryM65537 -v -timeout 30m
//	go tool pprof -top -sample_index=inuse_space /tmp/bgv.heap
//
// HCC_BGV_MEMCIRCUIT (default ../../../shared/circuits/adder64.txt) picks
// the circuit and HCC_BGV_MEMLEVEL the input level (default: the top, the
// worst case; the CLI encrypts at Params.LevelForCircuit). Outputs are
// checked against the plaintext simulator in slot 0.
func TestRunMemoryM65537(t *testing.T) {
	path := os.Getenv("HCC_BGV_MEMPROFILE")
	if path == "" {
		t.Skip("set HCC_BGV_MEMPROFILE=FILE to profile a run's memory at M65537 (~1 min, several GB)")
	}
	circuit := os.Getenv("HCC_BGV_MEMCIRCUIT")
	if circuit == "" {
		circuit = "../../../shared/circuits/adder64.txt"
	}
	c, err := ir.ReadFile(circuit)
	if err != nil {
		t.Fatal(err)
	}
	d, err := optimize.ForDepth().Run(c)
	if err != nil {
		t.Fatal(err)
	}
	pr := testParams(t, M65537Literal)
	level := pr.MaxLevel()
	if s := os.Getenv("HCC_BGV_MEMLEVEL"); s != "" {
		if level, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := pr.CheckCircuitAt(d, level); err != nil {
		t.Fatal(err)
	}
	kg := NewKeyGenerator(pr, NewSamplerFromSeed([32]byte{61}))
	sk := kg.GenSecretKey()
	ev := NewEvaluator(pr, NewEvaluationKeySet(kg.GenRelinKey(sk)))
	en := NewSymmetricEncryptor(pr, sk, NewSamplerFromSeed([32]byte{62}))
	de := NewDecryptor(pr, sk)
	rng := rand.New(rand.NewPCG(61, 62))
	in := make([]uint64, d.NumInputBits())
	cts := make([]backend.Ciphertext, len(in))
	pt := NewBinaryPoly(pr.N())
	for i := range in {
		in[i] = rng.Uint64() & 1
		clear(pt)
		pt[0] = in[i] // the constant polynomial: the bit in every slot
		if cts[i], err = en.EncryptAtLevel(pt, level); err != nil {
			t.Fatal(err)
		}
	}

	// Every second, collect and read the live heap; at a new maximum,
	// collect again and write the profile (a heap profile describes the
	// state of up to two collections ago).
	var (
		maxLive  uint64
		done     = make(chan struct{})
		finished = make(chan struct{})
	)
	write := func() {
		f, err := os.Create(path)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Error(err)
		}
	}
	go func() {
		defer close(finished)
		var ms goruntime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Second):
			}
			goruntime.GC()
			goruntime.ReadMemStats(&ms)
			if ms.HeapAlloc > maxLive {
				maxLive = ms.HeapAlloc
				goruntime.GC()
				write()
			}
		}
	}()
	t0 := time.Now()
	outs, st, err := hccrt.Run(context.Background(), d, NewBackend(ev), cts, hccrt.Options{Threads: 2})
	close(done)
	<-finished
	if err != nil {
		t.Fatal(err)
	}
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	t.Logf("%s at level %d: %d multiplications in %v; largest live heap sampled %d MB, Sys %d MB",
		d.Name, level, st.Costly, time.Since(t0).Round(time.Millisecond), maxLive>>20, ms.Sys>>20)
	want := d.EvalBits(in)
	for i, o := range outs {
		if got := de.Decrypt(o.(*Ciphertext)).Bit(0); uint64(got) != want[i]&1 {
			t.Fatalf("output bit %d = %d, want %d", i, got, want[i]&1)
		}
	}
}
