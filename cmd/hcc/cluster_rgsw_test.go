package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hcc-fhe/hcc/cluster"
)

// startCluster runs an embedded server on a free loopback port and n
// workers in this process until the test ends, and returns its URL.
func startCluster(t *testing.T, n int) string {
	t.Helper()
	s, err := cluster.StartServer(cluster.ServerConfig{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() }) // before Shutdown: cleanups run last first
	if err := cluster.Setup(ctx, cluster.ConnectConfig{URL: s.URL(), Storage: cluster.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	for range n {
		c, err := cluster.Connect(ctx, cluster.ConnectConfig{URL: s.URL()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		w, err := cluster.NewWorker(c, cluster.WorkerConfig{Engine: cluster.HCC, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	return s.URL()
}

// TestSubmitInputRGSW: a batch encrypted with hcc encrypt --input-rgsw
// (ToyCBS) goes through hcc submit to two workers, in tasks above the
// server's 1 MiB message limit (the object store carries them in
// chunks), and decrypts to the outputs hcc run --check verified against
// the plaintext evaluation.
func TestSubmitInputRGSW(t *testing.T) {
	dir := t.TempDir()
	writeHDL(t, dir, "d.hdl", rgswCircuit)
	batch := "a=1 b=254 c=3\na=0x0f b=0xf0 c=0xff\na=7 b=9 c=200\n"
	if err := os.WriteFile(filepath.Join(dir, "b.batch"), []byte(batch), 0o600); err != nil {
		t.Fatal(err)
	}
	checked := runRaw(t, dir, "run", "--params", "ToyCBS", "--insecure", "--check", "TMP/d.hdl", "--batch", "TMP/b.batch")
	if !strings.HasPrefix(checked, "exit 0") || !strings.Contains(checked, "check: all 10 output bits of 3 instances match") {
		t.Fatalf("run --check:\n%s", checked)
	}
	for _, args := range [][]string{
		{"keygen", "--params", "ToyCBS", "--insecure", "-o", "TMP/k"},
		{"encrypt", "--insecure", "--input-rgsw", "--key", "TMP/k/secret.key", "TMP/d.hdl", "--batch", "TMP/b.batch", "-o", "TMP/in.ct"},
	} {
		if got := runRaw(t, dir, args...); !strings.HasPrefix(got, "exit 0") {
			t.Fatalf("hcc %v:\n%s", args, got)
		}
	}
	// 24 input bits of 4104 + 24608 B: 689 KB per instance, so the first
	// task of two instances is above the server's 1 MiB message limit.
	if st, err := os.Stat(filepath.Join(dir, "in.ct")); err != nil || st.Size() < 3*600_000 {
		t.Fatalf("input file: %v, %v: want the input RGSWs in it", st, err)
	}
	url := startCluster(t, 2)
	got := runRaw(t, dir, "submit", "--insecure", "--server", url, "--eval-key", "TMP/k/eval.key", "--per-task", "2", "--timeout", "2m", "TMP/d.hdl", "TMP/in.ct", "-o", "TMP/out.ct")
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "3 instances (with their input RGSWs) in 2 tasks") {
		t.Fatalf("submit:\n%s", got)
	}
	t.Log(got)
	dec := runRaw(t, dir, "decrypt", "--key", "TMP/k/secret.key", "TMP/d.hdl", "TMP/out.ct")
	if !strings.HasPrefix(dec, "exit 0") {
		t.Fatalf("decrypt:\n%s", dec)
	}
	if want, have := stdoutOf(checked), stdoutOf(dec); want == "" || want != have {
		t.Errorf("decrypted cluster outputs:\n%s\nwant (hcc run --check):\n%s", have, want)
	}
}
