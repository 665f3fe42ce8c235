package aesbench

import (
	"context"
	"strings"
	"testing"
)

// TestRunToy runs the two BGV rows at the toy ring on 4 blocks: every
// block is checked against crypto/aes inside Run, and the report names
// the rows.
func TestRunToy(t *testing.T) {
	var log []string
	rows, err := Run(context.Background(), Options{Blocks: 4, Threads: 2, Seed: 1,
		Log: func(f string, a ...any) { log = append(log, f) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Design != ByteSliced || rows[1].Design != BitSliced {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		if r.Blocks != 4 || r.Checked != 4 || r.Latency <= 0 || r.LevelsPerRound <= 0 || r.UploadFHE <= 0 || r.Secure {
			t.Fatalf("row %+v", r)
		}
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, rows, 2, "1.0 1.0 1.0"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"byte-sliced", "bit-sliced", "ToyM257Deep (insecure)", "load average 1.0"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, b.String())
		}
	}
	t.Log("\n" + b.String())
}

func TestRunErrors(t *testing.T) {
	for _, o := range []Options{{Rows: []string{"nope"}}, {Blocks: -1}, {Rows: []string{ByteSliced}, Ring: "M8191"}, {Rows: []string{ByteSliced}, Ring: "NoSuchRing"},
		// Input RGSWs: a set without them, a run without the fhew row.
		{Rows: []string{FHEW}, FHEWParams: "ToySigned", InputRGSW: true}, {Rows: []string{ByteSliced}, InputRGSW: true}} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Fatalf("%+v: no error", o)
		}
	}
}

// TestRunCTR: the transciphering row on 5 records (checked by decryption
// against the plaintext inside Run).
func TestRunCTR(t *testing.T) {
	rows, err := Run(context.Background(), Options{Rows: []string{CTR}, Blocks: 5, Threads: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[0]; r.Design != CTR || r.Blocks != 5 || r.Checked != 5 || r.UploadKey <= 0 || r.Latency <= 0 {
		t.Fatalf("row %+v", r)
	}
}
