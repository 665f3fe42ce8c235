// Package bgv is hcc's packed BGV backend with plaintext modulus 2 over the
// cyclotomic ring R = Z[X]/Φ_m for an odd prime m, after Gentry, Halevi and
// Smart, "Homomorphic Evaluation of the AES Circuit" (GHS). Unlike
// power-of-two cyclotomics, where X^N+1 = (X+1)^N mod 2 leaves one slot,
// Φ_m mod 2 splits into ℓ = φ(m)/d factors of degree d = ord_m(2), giving ℓ
// plaintext slots of GF(2^d) each.
//
// # Running a circuit
//
// A circuit runs bit-sliced: every input bit is one ciphertext whose ℓ
// slots hold that bit of ℓ independent instances, and every gate is a sum
// or a product of ciphertexts (NOT adds 1, XOR adds, AND multiplies). The
// steps, each a few calls:
//
//   - parameters: NewParams(M8191Literal) (630 slots, AND-depth 6) or
//     M65537Literal (2048 slots, depth 41), see ParamsLiteral;
//   - the circuit lowered for depth (optimize.ForDepth) and checked against
//     the modulus chain by the noise simulation before any key exists:
//     CheckCircuit, LevelForCircuit (the lowest input level that suffices),
//     EstimateMemory (what the run will hold);
//   - keys: NewKeyGenerator, GenSecretKey, GenRelinKey (the executor
//     needs no other evaluation key), NewEvaluationKeySet, NewEvaluator;
//   - inputs: an Encoder puts one bit per slot (NewEncoder, EncodeBits),
//     an Encryptor encrypts at the chosen level (EncryptAtLevel);
//   - the run: NewBackend(evaluator) is a backend.Evaluator for
//     runtime.Run; outputs decrypt with a Decryptor (NewDecryptor,
//     Decrypt) and decode per slot (DecodeBits).
//
// Every ciphertext carries a noise estimate; a product that the estimate
// says would not decrypt is refused (ErrNoiseBudget) rather than computed
// wrongly, and the simulation finds that node before the run.
//
// # Layers (bottom up)
//
//   - backend/ring below it: the scalar arithmetic of the RNS primes
//     (Modulus64, AddMod64, MulShoup64, ...), prime generation
//     (GeneratePrimes with any step), and the per-prime transform
//     ring.RaderNTT (RaderPlan shared by all primes): the map between
//     coefficients modulo Φ_m and evaluations at the m-1 primitive m-th
//     roots of unity by Rader's algorithm, a cyclic convolution of length
//     m-1 on ring's CyclicNTT64, with AVX-512 kernels.
//   - modarith.go: modulus, ring.Modulus64 plus the constants of this
//     package's vector row products.
//   - vec_amd64.{go,h}, rns_amd64.s, vec_other.go:
//     AVX-512F/DQ kernels chosen at run time (hasVec, via x/sys/cpu;
//     -tags purego leaves them out): Barrett products of residue rows, the
//     tensor product, base conversion and the mod-down finish. Every kernel
//     is tested bit for bit against the pure-Go path (vec_amd64_test.go).
//   - parallel.go: optional key-switching workers (NewParallelScratch).
//   - params.go: ParamsLiteral → NewParams → Params, the modulus
//     chain and its security bound.
//   - ring.go: Ring and Poly, the double-CRT representation (GHS 2.1, 3).
//   - galois.go: the automorphisms κ_t: X → X^t in both representations.
//   - gf2.go, slots.go: GF(2)[X], the slot field GF(2^d), the factorisation
//     of Φ_m mod 2 and the slot encoder.
//   - scheme.go: ternary keys, public-key and symmetric encryption,
//     decryption (DecryptTo: at level 0 by a mod-2-corrected division by
//     p_1…p_t in coefficient form, no math/big; NoiseBits measures with
//     math/big for tests).
//   - rns.go: fast base extension (centred, float-corrected) and the
//     mod-2-corrected exact division by a product of primes (GHS 3.2,
//     appendix E), with per-level tables.
//   - keyswitch.go: hybrid key switching over Q·P (GHS 3.1 with digits),
//     SwitchingKey, EvaluationKeySet (keys by Galois element), Scratch; the
//     cost model and the m = 65537 parameter decision.
//   - evaluator.go: Evaluator kernels with explicit scratch (Add, AddOne,
//     Mul = tensor + relinearize, Automorphism, Rotate, Frobenius,
//     DropLevel); the noise policy switches operands down only when needed.
//   - constant.go: slot-wise constants (GHS 3.4): ConstPlaintext with its
//     canonical-embedding size, MulConst, AddConst.
//   - rotate.go: exact GF(2^d) slot rotations for gcd(d, ℓ) > 1 (two
//     automorphisms and a wrap mask), SlotRotationElements, AddAutoKeys.
//   - noise.go: the noise estimate every ciphertext carries (GHS 3.3) and the
//     AND-depth figures (DepthAvailable, CheckDepth, LevelFor) of a chain of
//     products.
//   - sim.go: the level and noise rules of the Evaluator's operations as
//     functions of NoiseState, which the kernels use, and Simulate, which
//     runs them over a circuit through the executor's own gate expansions:
//     the pre-run check (CheckCircuit, CheckInputs, LevelForCircuit) predicts
//     exactly where a run refuses a product, and NoiseError says which node
//     and how many primes the circuit needs.
//   - gates.go: the gates' GF(2) expansions (LUTs by their ANF), generic
//     over ciphertexts (the executor) and noise states (the simulation).
//   - executor.go: Backend, the bit-sliced circuit executor
//     (backend.Evaluator), and CircuitDepth.
//   - memory.go: EstimateMemory, a run's peak memory (keys, the
//     ciphertexts the runtime's schedule holds at once, scratch) from the
//     circuit and the input level, before any key exists.
//
// # Evaluation order
//
// With g = Params.Generator() (the smallest generator of Z_m^*) and ζ_i the
// chosen primitive m-th root of unity modulo prime p_i, row i of an element
// in evaluation form lists a(ζ_i^(g^s)) for s = 0..m-2. In this order every
// automorphism κ_(g^e) is the cyclic rotation s → s+e, and the Rader
// transform needs no output permutation.
//
// # Which primes the transform accepts
//
// Every prime must satisfy p ≡ 1 (mod m) (ζ must exist). The length-(m-1)
// cyclic convolution runs as a power-of-two cyclic NTT of length N (N = m-1
// for the Fermat primes 17, 257, 65537; the next power of two >= 2(m-1)-1
// otherwise, zero-padded). It is done either modulo p itself (direct mode,
// p ≡ 1 mod m·N) or exactly over the integers modulo a 61-bit auxiliary NTT
// prime Q ≡ 1 (mod N) (auxiliary mode, when (m-1)·(p-1)^2 < Q). For
// m = 65537, m·N ≈ 2^32, so direct primes have at least 37 bits (there are 23
// below 2^41 and 61 below 2^42), while auxiliary primes must stay below
// 2^22.5 (five exist). Both modes cost the same: two length-N NTTs and one
// pointwise product.
//
// # What lives in ring
//
// Generic 64-bit arithmetic is in backend/ring: Modulus64 and its free
// kernels, GeneratePrimes, the number theory (PrimeFactors,
// SmallestGenerator, MultiplicativeOrder, RootOfUnity), CyclicNTT64 and
// RaderNTT. This package keeps what is BGV-specific: RNS base conversion and
// modulus switching, key switching, the noise model. Its 64-bit vector row
// products (vec_amd64.h, rns_amd64.s) could still move to ring to serve
// Modulus64's slice methods.
package bgv
