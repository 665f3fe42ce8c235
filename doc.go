// Package hcc compiles Boolean circuits and runs them under fully
// homomorphic encryption: a server evaluates a program on encrypted inputs
// with evaluation keys only, and the client, who holds the secret key,
// decrypts the outputs. It is the one package a Go program needs; the
// hcc command is a thin command line over it.
//
// # The workflow
//
// A program is a circuit compiled for a Target: an engine, a parameter
// set and options.
//
//	prog, err := hcc.Compile(hcc.HDL(src, ""), hcc.Target{Engine: "fhew"})
//	client, server, err := hcc.GenerateKeys(prog)      // secret key, evaluation keys
//	in, err := prog.ParseInputs("a=200", "b=0x64")     // the syntax of hcc --in
//	cts, err := client.Encrypt(prog, in)               // one or many input sets
//	out, stats, err := hcc.Eval(ctx, prog, server, cts, hcc.EvalOptions{Threads: 2})
//	res, err := client.Decrypt(prog, out)              // one Values per input set
//
// Compile takes HDL text (HDL) or a file (File): .hdl source with its
// imports (relative paths, or "stdlib/..." from the embedded library), the
// .hir text format, or a Bristol-fashion netlist (buses in0.., out0..);
// FromCircuit takes a circuit built with package ir. Compiling is
// deterministic: the same source and target give the same program, with the
// same Program.Hash.
//
// # Engines and parameters
//
// Engines register themselves (Engines, LookupEngine):
//
//   - "fhew", the default: one bit per ciphertext, every gate, lookup table
//     and parity a bootstrap. The compiler maps the circuit to LUTs of up to
//     Target.LUTInputs inputs, keeping only functions the parameter set
//     evaluates in one bootstrap with failure probability at most 2^-40,
//     and PARITY nodes within Target.ParityFailureLog2 (2^-80 per bootstrap
//     by default). The default set is STD128_LOWFAIL_T (128-bit security,
//     every function the mapper emits below 2^-90 failure).
//   - "bgv": packed BGV with plaintext modulus 2, one circuit instance per
//     slot, bit-sliced and levelled. The compiler lowers the AND-depth and,
//     without Target.Params, picks the smallest secure set on which the
//     noise model's simulation of the compiled circuit succeeds (M8191: 630
//     slots, depth 6; M65537: 2048 slots, depth 41). A circuit the chain
//     cannot carry is refused at Compile, naming the node and the primes
//     needed.
//
// The insecure Toy sets (ToySigned, ToyM257, ...) exist for tests and
// examples. Target.Insecure is the one switch that allows them; every
// other path refuses them. A program file may record a Toy set, but that
// is not the switch: GenerateKeys and Encrypt for such a program need it
// loaded by Compile with Target.Insecure. Keys read from files keep
// whatever set they were generated for. Sets below the 128-bit target,
// kept for paper reproduction (FHEW's STD128_LMKCDEY_G, STD128_P8_Q28), are
// allowed, and Program.SecurityWarning says what they give.
//
// Before running, a caller can weigh a program: Program.FailureLog2 (and
// FailureWarning above 2^MaxFailureLog2) is FHEW's predicted failure per
// run; Program.EstimateMemory is a run's peak memory (every engine), before any key is made
// (hcc run/eval/encrypt refuse 1.5 times it above the memory available
// unless --force). Source.MemoryBudget bounds HDL elaboration.
//
// # Batches
//
// Encrypt takes any number of input sets. On FHEW, Eval runs all of them
// in one scheduler run (the circuit replicated instance after instance), so
// that every thread stays busy across instances while memory holds about
// one instance's live values. On BGV each ciphertext holds up to Slots
// instances ("a pack"); more sets than slots make several packs, evaluated
// one after the other. A single input set on BGV fills every slot, and
// decryption checks that the slots agree. Ciphertexts.Split and
// JoinCiphertexts cut a batch into parts for several servers and put the
// results back in order.
//
// EncryptWith takes options: EncryptOptions.InputRGSW (the wide-table sets
// only) also sends every input bit as an RGSW ciphertext, so that Eval
// bootstraps fewer table inputs (AES-128: 1440 circuit bootstraps instead
// of 1600) for inputs about 7 times larger.
//
// # Files
//
// Keys, ciphertexts and compiled programs marshal to one versioned,
// checksummed format (MarshalBinary; UnmarshalClientKey,
// UnmarshalServerKey, UnmarshalCiphertexts, UnmarshalProgram). Every file
// records its engine and parameter set; ciphertext files also record the
// key id, the source circuit's hash and the bus layout, so that a wrong
// key, another circuit's ciphertexts, outputs passed as inputs, or a
// damaged or truncated file are one-line errors before any work. Decoding
// a program trusts nothing: the circuit is verified, every node is checked
// against the parameter set, and the hash is recomputed.
//
// WriteFile writes atomically (a temporary file in the same directory,
// synced, then renamed), so an interrupted write never leaves a truncated
// file; it never replaces an hcc key file (WriteFileForce does), follows
// symbolic links, and writes into devices and FIFOs instead of renaming
// over them. WriteKeys writes secret.key (mode 0600) and eval.key into a
// directory and refuses to replace existing keys unless forced;
// ReadClientKeyFile warns about a secret key that others can read. Errors
// name the path the caller gave.
//
// A compiled program file (.hcp) lets a server evaluate without compiling:
// Compile and CompileFile read it instead of compiling when the source
// names one (IsProgramFile).
package hcc
