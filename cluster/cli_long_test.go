package cluster

import (
	"bufio"
	"context"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/internal/testenv"
)

// TestCLIKillWorkerDefaultSet is the acceptance run, opt-in
// (HCC_CLUSTER_LONG=1, about a minute on 2 cores): hcc serve, two hcc worker
// processes and hcc submit on loopback evaluate 16 adder64 instances at the
// default 128-bit FHEW set while one worker is killed with SIGKILL after its
// first task; every instance must decrypt to the plaintext result.
func TestCLIKillWorkerDefaultSet(t *testing.T) {
	if os.Getenv("HCC_CLUSTER_LONG") == "" {
		t.Skip("opt-in: HCC_CLUSTER_LONG=1 (builds hcc, 16 adder64 instances at the default set)")
	}
	src := filepath.Join(testenv.SharedCircuits(t), "adder64.txt")
	dir := t.TempDir()
	bin := filepath.Join(dir, "hcc")
	build := exec.Command("go", "build", "-o", bin, "./cmd/hcc")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	const n = 16
	p, err := hcc.CompileFile(src, hcc.Target{Engine: "fhew"})
	if err != nil {
		t.Fatal(err)
	}
	ck, sk, err := hcc.GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	batch := make([]hcc.Values, n)
	for i := range batch {
		batch[i] = hcc.Values{}
		for j, bus := range p.Inputs() {
			batch[i][bus.Name] = []*big.Int{new(big.Int).SetUint64(uint64(i+1) * uint64(j+5) * 0x9e3779b97f4a7c15)}
		}
	}
	cts, err := ck.Encrypt(p, batch...)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, m interface{ MarshalBinary() ([]byte, error) }) string {
		data, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	keyFile, progFile, inFile := write("eval.key", sk), write("prog.hcp", p), write("in.ct", cts)
	secretFile := write("secret.key", ck)
	outFile := filepath.Join(dir, "out.ct")

	addr := freePort(t)
	url := "nats://" + addr
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := func(args ...string) (*exec.Cmd, *bufio.Scanner) {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "HCC_NATS_TOKEN=")
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, bufio.NewScanner(errPipe)
	}
	_, serveLog := start("serve", "--listen", addr, "--store", filepath.Join(dir, "store"), "--ack-wait", "5s")
	if !serveLog.Scan() || !strings.Contains(serveLog.Text(), "JetStream on") {
		t.Fatalf("serve: %q", serveLog.Text())
	}
	go func() {
		for serveLog.Scan() {
		}
	}()

	// The secret key is refused before anything is sent.
	refused := exec.CommandContext(ctx, bin, "submit", "--server", url, "--eval-key", secretFile, progFile, inFile, "-o", outFile)
	if out, err := refused.CombinedOutput(); err == nil || !strings.Contains(string(out), "secret (client) key") {
		t.Fatalf("submit with the secret key: %v\n%s", err, out)
	}

	victim, victimLog := start("worker", "--server", url, "--cache", filepath.Join(dir, "c1"), "-v")
	_, otherLog := start("worker", "--server", url, "--cache", filepath.Join(dir, "c2"), "-v")
	go func() {
		for otherLog.Scan() {
		}
	}()
	submit := exec.CommandContext(ctx, bin, "submit", "--server", url, "--eval-key", keyFile, progFile, inFile, "-o", outFile)
	var submitOut strings.Builder
	submit.Stderr = &submitOut
	if err := submit.Start(); err != nil {
		t.Fatal(err)
	}
	for victimLog.Scan() {
		if strings.Contains(victimLog.Text(), "instances in") {
			break // one task done, the next one is under way
		}
	}
	time.Sleep(500 * time.Millisecond)
	if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := submit.Wait(); err != nil {
		t.Fatalf("submit: %v\n%s", err, submitOut.String())
	}
	t.Logf("%s", lastLine(submitOut.String()))

	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	out, err := hcc.UnmarshalCiphertexts(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ck.Decrypt(p, out)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range batch {
		want, err := p.EvalPlain(in)
		if err != nil {
			t.Fatal(err)
		}
		for name, w := range want {
			for e := range w {
				if got[i][name][e].Cmp(w[e]) != 0 {
					t.Errorf("instance %d %s: got %v, want %v", i, name, got[i][name][e], w[e])
				}
			}
		}
	}
	t.Logf("all %d instances decrypt to the plaintext results", n)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
