package cluster

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc"
	"github.com/nats-io/nats-server/v2/server"
)

// TestHCCWideInputRGSW runs a wide-table batch whose inputs carry
// client-side input RGSWs (hcc.EncryptOptions.InputRGSW) on two loopback
// workers. Such inputs are about 7x larger (ToyCBS: 4104 + 24608 B per
// bit), so one task's part is above the server's 1 MiB message limit:
// it must travel through the object store's chunks, never as one
// message. The workers' outputs must match the plaintext evaluator.
func TestHCCWideInputRGSW(t *testing.T) {
	tg := hcc.Target{Engine: "fhew", Params: "ToyCBS", Insecure: true}
	const n, perTask = 5, 3
	j := newHCCJobWith(t, tg, n, hcc.EncryptOptions{InputRGSW: true})
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	startWorkers(t, s.URL(), 2, WorkerConfig{Engine: HCC, CacheDir: t.TempDir()})
	c := testConnect(t, s.URL())

	// The premise: the first task's part (3 instances of 16 input bits) is
	// larger than the largest message the server takes.
	parts, sizes, err := HCC.Split(j.in, perTask)
	if err != nil {
		t.Fatal(err)
	}
	limit := c.Conn().MaxPayload()
	if len(parts) != 2 || sizes[0] != perTask || int64(len(parts[0])) <= limit {
		t.Fatalf("%d parts %v, the first of %d bytes: want 2 parts, the first above the %d-byte message limit", len(parts), sizes, len(parts[0]), limit)
	}
	// What a worker decodes still carries the RGSWs (hcc.Eval then builds
	// the input forms from them instead of bootstrapping).
	for i, part := range parts {
		if c, err := hcc.UnmarshalCiphertexts(part); err != nil || !c.HasInputRGSW() {
			t.Fatalf("part %d: %v, input RGSWs: %v", i, err, err == nil && c.HasInputRGSW())
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	out, st, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: HCC, PerTask: perTask})
	if err != nil {
		t.Fatal(err)
	}
	if !st.InputRGSW {
		t.Error("SubmitStats.InputRGSW is false for inputs with input RGSWs")
	}
	if st.Tasks != 2 || st.BytesUp != int64(len(parts[0])+len(parts[1])) {
		t.Errorf("%d tasks, %d bytes up: want 2 tasks, %d bytes", st.Tasks, st.BytesUp, len(parts[0])+len(parts[1]))
	}
	if err := j.check(out); err != nil {
		t.Fatal(err)
	}
	// The outputs are bare wide bits: far smaller than the inputs.
	if st.BytesDown >= st.BytesUp/4 {
		t.Errorf("%d bytes down for %d up: the outputs should not carry input RGSWs", st.BytesDown, st.BytesUp)
	}
	t.Logf("%d instances, %d tasks: %.2f MB up, %.2f MB down, %.2f s of worker evaluation", n, st.Tasks, float64(st.BytesUp)/1e6, float64(st.BytesDown)/1e6, st.EvalSeconds)
}

// startLimitedServer is an embedded server with JetStream memory limited
// to maxMemory bytes and messages to maxPayload (a small external server).
func startLimitedServer(t *testing.T, maxMemory int64, maxPayload int32) string {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, NoSigs: true, NoLog: true,
		StoreDir: t.TempDir(), JetStreamMaxMemory: maxMemory, MaxPayload: maxPayload})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server did not start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := Setup(ctx, ConnectConfig{URL: ns.ClientURL(), Storage: MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	return ns.ClientURL()
}

// TestSubmitServerLimits: a server without room for a batch with input
// RGSWs (3.7 MB of inputs and a 2.4 MB key, 5 MB of JetStream memory), or
// whose messages are below the object store's 128 KiB chunks, fails
// Submit with what to do, not only the server's error code; the job that
// ran out of room is deleted with the parts it had stored.
func TestSubmitServerLimits(t *testing.T) {
	j := newHCCJobWith(t, hcc.Target{Engine: "fhew", Params: "ToyCBS", Insecure: true}, 8, hcc.EncryptOptions{InputRGSW: true})
	for _, c := range []struct {
		name       string
		memory     int64
		payload    int32
		want, code string
	}{
		{"full", 5 << 20, 1 << 20, "JetStream storage is full", "insufficient resources"},
		{"max_payload", 64 << 20, 64 << 10, "max_payload is below the object store's 128 KiB chunks", "maximum payload exceeded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := testConnect(t, startLimitedServer(t, c.memory, c.payload))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, _, err := cl.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: HCC, PerTask: 1})
			t.Log(err)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.code) {
				t.Fatalf("got %v, want %q and the server's %q", err, c.want, c.code)
			}
			if c.name != "full" {
				return
			}
			if !regexp.MustCompile(`its [1-9]\d* stored part\(s\) were deleted`).MatchString(err.Error()) {
				t.Errorf("the job failed before any part was stored, or does not say it was deleted: %v", err)
			}
			if jobs, err := cl.Jobs(ctx); err != nil || len(jobs) != 0 {
				t.Errorf("jobs left on the server: %v, %v", jobs, err)
			}
			infos, _ := cl.objects.List(ctx)
			for _, info := range infos {
				if strings.HasPrefix(info.Name, "in/") {
					t.Errorf("part %s left in the object store", info.Name)
				}
			}
		})
	}
}
