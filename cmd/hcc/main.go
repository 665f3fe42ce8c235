// Command hcc compiles hardware-description programs to Boolean circuits,
// simulates them in plaintext, converts between circuit formats, and runs them
// encrypted under FHEW gate bootstrapping or packed BGV.
//
//	hcc compile FILE.hdl [-circuit NAME] [-style size|depth] [--backend fhew|bgv [--params NAME] [-v]] [-o OUT.hir|OUT.hcp]
//	hcc sim FILE --in name=value ... [-circuit NAME] [-style size|depth]
//	hcc stats FILE
//	hcc dot FILE [-o OUT.dot]
//	hcc export-bristol FILE [-o OUT.txt]
//	hcc export-blif FILE [-o OUT.blif]
//	hcc keygen [--backend fhew|bgv] [--params NAME] [--insecure] [--transcipher] [--force] -o DIR
//	hcc encrypt --key DIR/secret.key FILE (--in name=value ... | --batch FILE) -o IN.ct
//	hcc eval --eval-key DIR/eval.key FILE IN.ct -o OUT.ct [--threads N]
//	hcc decrypt --key DIR/secret.key FILE OUT.ct
//	hcc decrypt --key DIR/secret.key [FILE] RECORDS.ct -o RECORDS.out [--length N]
//	hcc transcipher encrypt-key --key DIR/secret.key --aes-key HEX [PROGRAM] -o AESKEY.ct
//	hcc transcipher eval --eval-key DIR/eval.key --aes-key AESKEY.ct --iv HEX [PROGRAM] DATA.aes -o RECORDS.ct
//	hcc run FILE (--in name=value ... | --batch FILE) [--backend fhew|bgv] [--params NAME] [--threads N] [--check]
//	hcc bench fhew [--figure2] [--out DIR]
//	hcc bench aes [--rows byte,bit,fhew] [--ring SET] [--fhew-params SET] [--blocks N]
//	hcc serve [--listen 127.0.0.1:4222] [--store DIR] [--workers N]
//	hcc worker --server nats://HOST:4222 [--threads N]
//	hcc submit --server nats://HOST:4222 --eval-key DIR/eval.key PROGRAM IN.ct -o OUT.ct
//	hcc version (or hcc --version)
//
// FILE is HDL source (.hdl), the .hir text format, or a Bristol-fashion
// netlist; CIRCUIT is also a compiled program (.hcp). The commands are thin:
// compiling, keys, encryption, evaluation and the file formats are the hcc
// package's (github.com/hcc-fhe/hcc). Run "hcc COMMAND --help" for a
// command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is the hcc release; there is none yet.
const version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one hcc subcommand.
type command struct {
	name, args, doc string
	// run executes the command with its flags parsed; a returned error is
	// printed as "hcc: NAME: error".
	run func(env *cmdEnv) error
	// flags declares the command's flags on fs.
	flags func(fs *flag.FlagSet, env *cmdEnv)
	// nargs is the number of positional arguments when args names more than one.
	nargs int
	// minArgs, if set, accepts from minArgs up to nargs positional
	// arguments (the command tells the optional ones apart).
	minArgs int
}

// cmdEnv carries a command's parsed flags, positional arguments and output.
type cmdEnv struct {
	stdout  io.Writer
	stderr  io.Writer // diagnostics and statistics (the encrypted workflow)
	args    []string
	circuit string
	style   string
	out     string
	ins     stringList
	warned  map[string]bool // warnings printed, each once per command
	// keyFile is the key file the command read (--key or --eval-key),
	// whose set a compiled program must match, for messages.
	keyFile string
	// maxMemory is --max-memory: hcc.Source.MemoryBudget.
	maxMemory byteSize
}

// warn prints a non-empty warning on stderr once per command.
func (e *cmdEnv) warn(msg string) {
	if msg == "" || e.warned[msg] {
		return
	}
	if e.warned == nil {
		e.warned = map[string]bool{}
	}
	e.warned[msg] = true
	fmt.Fprintf(e.stderr, "warning: %s\n", msg)
}

// warnInsecure prints, once per command, that k's parameter set is an
// insecure toy set (allowed by --insecure, or a key made with it): the
// commands that make keys, encrypt or evaluate under one say so on every
// run, so that a test setting never passes for a real one unnoticed.
func (e *cmdEnv) warnInsecure(k interface {
	Insecure() bool
	Params() string
}) {
	if k.Insecure() {
		e.warn(fmt.Sprintf("parameter set %s is insecure (test only)", k.Params()))
	}
}

// stringList is a repeatable string flag (--in a=1 --in b=2).
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

func commands() []*command {
	return []*command{
		compileCommand(),
		{name: "sim", args: "FILE", doc: "simulate a circuit in plaintext on the given inputs and print every output", run: runSim,
			flags: func(fs *flag.FlagSet, e *cmdEnv) {
				circuitFlags(fs, e)
				fs.Var(&e.ins, "in", inHelp)
			}},
		{name: "stats", args: "FILE", doc: "print node counts per op, depth and AND-depth (bootstraps and multiplications: hcc compile --backend fhew|bgv)", run: runStats,
			flags: func(fs *flag.FlagSet, e *cmdEnv) { circuitFlags(fs, e) }},
		{name: "dot", args: "FILE", doc: "write the circuit as a Graphviz digraph", run: runDot,
			flags: func(fs *flag.FlagSet, e *cmdEnv) {
				circuitFlags(fs, e)
				outFlag(fs, e, "write to `OUT.dot` instead of standard output")
			}},
		{name: "export-bristol", args: "FILE", doc: "write the circuit in Bristol fashion (AND XOR INV EQ EQW)", run: runExportBristol,
			flags: func(fs *flag.FlagSet, e *cmdEnv) {
				circuitFlags(fs, e)
				outFlag(fs, e, "write to `OUT.txt` instead of standard output")
			}},
		benchCommand(),
		{name: "export-blif", args: "FILE", doc: "write the circuit in BLIF, for logic synthesis tools such as ABC", run: runExportBLIF,
			flags: func(fs *flag.FlagSet, e *cmdEnv) {
				circuitFlags(fs, e)
				outFlag(fs, e, "write to `OUT.blif` instead of standard output")
			}},
		keygenCommand(), encryptCommand(), evalCommand(), decryptCommand(), runCommand(),
		serveCommand(), workerCommand(), submitCommand(), // cluster_*.go: NATS JetStream scale-out
		transcipherCommand(), // transcipher.go: AES-128-CTR data in, hcc ciphertexts out
		{name: "version", doc: "print the hcc version, module version and commit (also hcc --version)", run: func(e *cmdEnv) error {
			fmt.Fprintln(e.stdout, versionLine())
			return nil
		}, flags: func(*flag.FlagSet, *cmdEnv) {}},
	}
}

func circuitFlags(fs *flag.FlagSet, e *cmdEnv) {
	fs.StringVar(&e.circuit, "circuit", "", "compile circuit `NAME` of an .hdl file that declares several")
	fs.StringVar(&e.style, "style", "size", "lowering of .hdl arithmetic, `size|depth` (fewest gates or lowest AND-depth)")
	fs.Var(&e.maxMemory, "max-memory", "memory `SIZE` .hdl elaboration may take before refusing the program (e.g. 4GiB, 512MiB, 2G; default 1.5GiB)")
}

func outFlag(fs *flag.FlagSet, e *cmdEnv, usage string) {
	fs.StringVar(&e.out, "o", "", usage)
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "hcc compiles hardware descriptions to Boolean circuits, simulates them, and runs them encrypted\n"+
		"(homomorphic encryption: FHEW gate bootstrapping or packed BGV; keygen, encrypt, eval, decrypt, run).\n\nUsage:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  hcc %-15s %s\n", c.name, c.doc)
	}
	fmt.Fprintf(w, "\nFILE is .hdl source, .hir text or a Bristol-fashion netlist; CIRCUIT is also a compiled program (.hcp from hcc compile --backend).\n"+
		"Run \"hcc COMMAND --help\" for the flags of a command.\n")
}

// run is the whole program: it returns the exit status (0 ok, 1 error,
// 2 bad usage) and writes results to stdout, errors to stderr.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		fmt.Fprintln(stderr, "hcc: no command given")
		return 2
	}
	name := args[0]
	switch name {
	case "-version", "--version":
		return run(append([]string{"version"}, args[1:]...), stdout, stderr)
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && name == "help" {
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return 0
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == name {
			cmd = c
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "hcc: unknown command %q (run \"hcc --help\")\n", name)
		return 2
	}
	env := &cmdEnv{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("hcc "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cmd.flags(fs, env)
	pos, err := parseInterleaved(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "Usage: hcc %s %s [flags]\n\n%s.\n", name, cmd.args, capitalize(cmd.doc))
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "hcc: %s: %v (run \"hcc %s --help\")\n", name, err, name)
		return 2
	}
	want := 0
	if cmd.args != "" {
		want = max(1, cmd.nargs)
	}
	if len(pos) != want && !(cmd.minArgs > 0 && len(pos) >= cmd.minArgs && len(pos) <= want) {
		if want == 0 {
			fmt.Fprintf(stderr, "hcc: %s: takes no arguments, got %q\n", name, pos)
		} else if want > 1 {
			fmt.Fprintf(stderr, "hcc: %s: want arguments %s, got %d\n", name, cmd.args, len(pos))
		} else {
			fmt.Fprintf(stderr, "hcc: %s: want one %s argument, got %d\n", name, cmd.args, len(pos))
		}
		return 2
	}
	env.args = pos
	if err := cmd.run(env); err != nil {
		// The first line is the reason; HDL diagnostics add source context
		// (and further errors) on the following lines.
		first, rest, more := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(stderr, "hcc: %s: %s\n", name, first)
		if more {
			fmt.Fprintln(stderr, rest)
		}
		return 1
	}
	return 0
}

// versionLine is "hcc VERSION (GO OS/ARCH, module PATH VERSION, commit
// REV)": the module version is the one go install recorded ("(devel)" for
// a build in the checkout), the commit the checkout's, marked "modified"
// when the work tree had changes (both from runtime/debug.ReadBuildInfo,
// absent when the build recorded none).
func versionLine() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "hcc %s (%s %s/%s", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path != "" && bi.Main.Version != "" {
			fmt.Fprintf(&sb, ", module %s %s", bi.Main.Path, bi.Main.Version)
		}
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			fmt.Fprintf(&sb, ", commit %.12s", rev)
			if modified == "true" {
				sb.WriteString(" modified")
			}
		}
	}
	sb.WriteString(")")
	return sb.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments (the flag package stops at the first positional one).
// Everything after "--" is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
