package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeygenRefusesOverwrite: keygen never replaces a key pair without
// --force (every ciphertext under the old key would be lost), and checks
// -o before generating anything.
func TestKeygenRefusesOverwrite(t *testing.T) {
	dir := t.TempDir()
	toy := []string{"--params", "ToySigned", "--insecure"}
	if got := runWorkflow(t, dir, append([]string{"keygen", "-o", "TMP/keys"}, toy...)...); !strings.HasPrefix(got, "exit 0") {
		t.Fatal(got)
	}
	secret := filepath.Join(dir, "keys", "secret.key")
	before, err := os.ReadFile(secret)
	if err != nil {
		t.Fatal(err)
	}
	got := runWorkflow(t, dir, append([]string{"keygen", "-o", "TMP/keys"}, toy...)...)
	want := "exit 1\n-- stdout --\n-- stderr --\nhcc: keygen: TMP/keys/secret.key exists (pass --force to overwrite it and lose every ciphertext made under it)\n"
	if got != want {
		t.Errorf("second keygen:\n%s\nwant\n%s", got, want)
	}
	if after, _ := os.ReadFile(secret); string(after) != string(before) {
		t.Error("secret.key changed without --force")
	}
	if got := runWorkflow(t, dir, append([]string{"keygen", "-o", "TMP/keys", "--force"}, toy...)...); !strings.HasPrefix(got, "exit 0") {
		t.Fatalf("keygen --force: %s", got)
	}
	if after, _ := os.ReadFile(secret); string(after) == string(before) {
		t.Error("keygen --force kept the old key")
	}
	if st, err := os.Stat(secret); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("secret.key after --force: %v, mode %v", err, st.Mode().Perm())
	}
	// -o names a file: refused before any key is generated (no "key ...
	// generated" line), with the path given.
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got = runWorkflow(t, dir, append([]string{"keygen", "-o", "TMP/plain/keys"}, toy...)...)
	if !strings.HasPrefix(got, "exit 1") || strings.Contains(got, "generated") || !strings.Contains(got, "TMP/plain") {
		t.Errorf("keygen into a file's path:\n%s", got)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "keys"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestCheapChecksFirst: an unwritable -o, --threads 0 and a missing batch
// file are refused before any compile, keygen or evaluation (no
// "compiled" or "keygen" line), naming the path given.
func TestCheapChecksFirst(t *testing.T) {
	dir := t.TempDir()
	toy := []string{"--params", "ToySigned", "--insecure"}
	runWorkflow(t, dir, append([]string{"keygen", "-o", "TMP/keys"}, toy...)...)
	runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/keys/secret.key", "testdata/xor48.hir", "--in", "x=1", "-o", "TMP/in.ct")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--eval-key", "TMP/keys/eval.key", "testdata/xor48.hir", "TMP/in.ct", "-o", "TMP/no/such/dir/out.ct"},
			"hcc: eval: cannot write TMP/no/such/dir/out.ct: no such file or directory\n"},
		{[]string{"eval", "--eval-key", "TMP/keys/eval.key", "testdata/xor48.hir", "TMP/in.ct", "-o", "TMP/out.ct", "--threads", "0"},
			"hcc: eval: --threads must be at least 1, got 0\n"},
		{append([]string{"run", "testdata/xor48.hir", "--in", "x=1", "--threads", "0"}, toy...),
			"hcc: run: --threads must be at least 1, got 0\n"},
		{append([]string{"run", "testdata/xor48.hir", "--batch", "TMP/missing.batch"}, toy...),
			"hcc: run: open TMP/missing.batch: no such file or directory\n"},
		{[]string{"encrypt", "--insecure", "--key", "TMP/keys/secret.key", "testdata/xor48.hir", "--in", "x=1", "-o", "TMP/no/dir/in.ct"},
			"hcc: encrypt: cannot write TMP/no/dir/in.ct: no such file or directory\n"},
		{[]string{"compile", "testdata/xor48.hir", "--backend", "fhew", "-o", "TMP/no/dir/p.hcp"},
			"hcc: compile: cannot write TMP/no/dir/p.hcp: no such file or directory\n"},
		{[]string{"decrypt", "--key", "TMP/keys/secret.key", "testdata/xor48.hir", "TMP/missing.ct"},
			"hcc: decrypt: open TMP/missing.ct: no such file or directory\n"},
	} {
		got := runWorkflow(t, dir, tc.args...)
		if want := "exit 1\n-- stdout --\n-- stderr --\n" + tc.want; got != want {
			t.Errorf("hcc %v:\n%s\nwant\n%s", tc.args, got, want)
		}
	}
}

// TestSecretKeyModeWarning: a secret key readable by others is used, with
// a warning naming the file.
func TestSecretKeyModeWarning(t *testing.T) {
	dir := t.TempDir()
	runWorkflow(t, dir, "keygen", "--params", "ToySigned", "--insecure", "-o", "TMP/keys")
	if err := os.Chmod(filepath.Join(dir, "keys", "secret.key"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runWorkflow(t, dir, "encrypt", "--insecure", "--key", "TMP/keys/secret.key", "testdata/xor48.hir", "--in", "x=1", "-o", "TMP/in.ct")
	want := "warning: secret key TMP/keys/secret.key is readable by other users (mode 0644); run chmod 600 TMP/keys/secret.key\n"
	if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, want) {
		t.Errorf("encrypt with a 0644 key:\n%s\nwant %q", got, want)
	}
}

// TestProgramFiles: compile --backend fhew|bgv -o prog.hcp, then encrypt,
// eval, decrypt and run take the program instead of the circuit (eval
// prints "loaded", not "compiled": no recompilation), and print what the
// source-circuit workflow prints; a damaged program is refused.
func TestProgramFiles(t *testing.T) {
	for _, engine := range []struct{ name, params string }{{"fhew", "ToySigned"}, {"bgv", "ToyM257"}} {
		t.Run(engine.name, func(t *testing.T) {
			dir := t.TempDir()
			set := []string{"--backend", engine.name, "--params", engine.params, "--insecure"}
			must := func(args ...string) string {
				t.Helper()
				got := runWorkflow(t, dir, args...)
				if !strings.HasPrefix(got, "exit 0") {
					t.Fatalf("hcc %v:\n%s", args, got)
				}
				return got
			}
			must(append([]string{"compile", "testdata/small.hdl", "-circuit", "mix", "-o", "TMP/mix.hcp"}, set...)...)
			must("keygen", "-o", "TMP/keys", "--for", "TMP/mix.hcp", "--insecure") // the program's engine and set
			ins := []string{"--in", "x=-100", "--in", "y=0x9c", "--in", "v=3,15"}
			must(append([]string{"encrypt", "--insecure", "--key", "TMP/keys/secret.key", "TMP/mix.hcp", "-o", "TMP/in.ct"}, ins...)...)
			got := must("eval", "--eval-key", "TMP/keys/eval.key", "TMP/mix.hcp", "TMP/in.ct", "-o", "TMP/out.ct")
			if !strings.Contains(got, "loaded TMP/mix.hcp") || strings.Contains(got, "compiled") {
				t.Errorf("eval of a program recompiled:\n%s", got)
			}
			got = must("eval", "--eval-key", "TMP/keys/eval.key", "TMP/mix.hcp", "TMP/in.ct", "-o", "TMP/out.ct", "--parity-failure", "-40")
			if want := "warning: --parity-failure -40 ignored: TMP/mix.hcp was compiled with -80\n"; !strings.Contains(got, want) {
				t.Errorf("eval of a program with another --parity-failure:\n%s\nwant %q", got, want)
			}
			sim := stdoutOf(runHCC(t, append([]string{"sim", "testdata/small.hdl", "-circuit", "mix"}, ins...)...))
			if got := stdoutOf(must("decrypt", "--key", "TMP/keys/secret.key", "TMP/mix.hcp", "TMP/out.ct")); got != sim {
				t.Errorf("decrypt via the program:\n%s\nwant\n%s", got, sim)
			}
			// Ciphertexts belong to the function: the source decrypts them too.
			if got := stdoutOf(must("decrypt", "--key", "TMP/keys/secret.key", "testdata/small.hdl", "-circuit", "mix", "TMP/out.ct")); got != sim {
				t.Errorf("decrypt via the source:\n%s\nwant\n%s", got, sim)
			}
			if got := stdoutOf(must(append([]string{"sim", "TMP/mix.hcp"}, ins...)...)); got != sim {
				t.Errorf("sim of the program:\n%s\nwant\n%s", got, sim)
			}
			// run takes the program's engine and set (a Toy one needs --insecure).
			if got := stdoutOf(must(append([]string{"run", "TMP/mix.hcp", "--check", "--insecure"}, ins...)...)); got != sim {
				t.Errorf("run of the program:\n%s\nwant\n%s", got, sim)
			}
			data, err := os.ReadFile(filepath.Join(dir, "mix.hcp"))
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 4
			if err := os.WriteFile(filepath.Join(dir, "bad.hcp"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			got = runWorkflow(t, dir, "eval", "--eval-key", "TMP/keys/eval.key", "TMP/bad.hcp", "TMP/in.ct", "-o", "TMP/out2.ct")
			if want := "hcc: eval: TMP/bad.hcp is corrupted or truncated (checksum mismatch)\n"; !strings.HasSuffix(got, want) {
				t.Errorf("damaged program:\n%s\nwant %q", got, want)
			}
		})
	}
}
