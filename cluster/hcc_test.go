package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc"
)

// testCircuit is small on both engines: an 8-bit adder with carry and a
// comparison.
const testCircuit = `
circuit add(a: u8, b: u8) -> (sum: u8, carry: bit, lt: bit) {
	sum = a + b;
	carry = (a + b) < a;
	lt = a < b;
}
`

// hccJob is a real encrypted batch: program, keys and input files.
type hccJob struct {
	p             *hcc.Program
	ck            *hcc.ClientKey
	key, prog, in []byte
	inputs        []hcc.Values
}

func newHCCJob(t testing.TB, tg hcc.Target, n int) hccJob {
	t.Helper()
	return newHCCJobWith(t, tg, n, hcc.EncryptOptions{})
}

// newHCCJobWith is newHCCJob with the inputs encrypted under eo.
func newHCCJobWith(t testing.TB, tg hcc.Target, n int, eo hcc.EncryptOptions) hccJob {
	t.Helper()
	p, err := hcc.Compile(hcc.HDL(testCircuit, ""), tg)
	if err != nil {
		t.Fatal(err)
	}
	ck, sk, err := hcc.GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	inputs := make([]hcc.Values, n)
	for i := range inputs {
		v, err := p.ParseInputs(fmt.Sprintf("a=%d", (i*37+11)%256), fmt.Sprintf("b=%d", (i*91+200)%256))
		if err != nil {
			t.Fatal(err)
		}
		inputs[i] = v
	}
	cts, err := ck.EncryptWith(p, eo, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	if cts.HasInputRGSW() != eo.InputRGSW {
		t.Fatalf("inputs carry input RGSWs: %v, want %v", cts.HasInputRGSW(), eo.InputRGSW)
	}
	j := hccJob{p: p, ck: ck, inputs: inputs}
	if j.key, err = sk.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	if j.prog, err = p.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	if j.in, err = cts.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	return j
}

// check decrypts out and compares every instance with the plaintext evaluator.
func (j hccJob) check(out []byte) error {
	cts, err := hcc.UnmarshalCiphertexts(out)
	if err != nil {
		return err
	}
	got, err := j.ck.Decrypt(j.p, cts)
	if err != nil {
		return err
	}
	if len(got) != len(j.inputs) {
		return fmt.Errorf("got %d instances, want %d", len(got), len(j.inputs))
	}
	for i, in := range j.inputs {
		want, err := j.p.EvalPlain(in)
		if err != nil {
			return err
		}
		for _, b := range j.p.Outputs() {
			for e := range want[b.Name] {
				if got[i][b.Name][e].Cmp(want[b.Name][e]) != 0 {
					return fmt.Errorf("instance %d output %s[%d]: got %v, want %v", i, b.Name, e, got[i][b.Name][e], want[b.Name][e])
				}
			}
		}
	}
	return nil
}

func testHCC(t *testing.T, tg hcc.Target, n, perTask, wantTasks int) {
	j := newHCCJob(t, tg, n)
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	startWorkers(t, s.URL(), 2, WorkerConfig{Engine: HCC, CacheDir: t.TempDir()})
	c := testConnect(t, s.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, st, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: HCC, PerTask: perTask})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tasks != wantTasks || st.InputRGSW {
		t.Errorf("%d tasks, want %d; input RGSWs: %v", st.Tasks, wantTasks, st.InputRGSW)
	}
	if err := j.check(out); err != nil {
		t.Fatal(err)
	}
}

func TestHCCFHEWBatch(t *testing.T) {
	testHCC(t, hcc.Target{Engine: "fhew", Params: "ToySigned", Insecure: true}, 5, 2, 3)
}

func TestHCCBGVBatch(t *testing.T) {
	tg := hcc.Target{Engine: "bgv", Params: "ToyM257", Insecure: true}
	p, err := hcc.Compile(hcc.HDL(testCircuit, ""), tg)
	if err != nil {
		t.Fatal(err)
	}
	slots := p.Slots()
	// Two full packs and a partial one: three tasks of one pack each.
	testHCC(t, tg, 2*slots+3, 0, 3)
}

func TestHCCRefusesSecretAndForeignKeys(t *testing.T) {
	tg := hcc.Target{Engine: "fhew", Params: "ToySigned", Insecure: true}
	j := newHCCJob(t, tg, 1)
	other := newHCCJob(t, tg, 1)
	secret, err := j.ck.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	s := startTestServer(t, "", "", Tuning{})
	defer s.Shutdown()
	c := testConnect(t, s.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name string
		key  []byte
		want string
	}{
		{"secret key", secret, "secret (client) key"},
		{"other key", other.key, "input ciphertexts are for key"},
	} {
		_, _, err := c.Submit(ctx, tc.key, j.prog, j.in, SubmitOptions{Engine: HCC})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// Nothing was stored: the secret key never reached the server.
	if names, _ := c.objects.List(ctx); len(names) != 0 {
		t.Errorf("%d objects stored", len(names))
	}
}
