package bgv

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// ParamsLiteral is the plain, serialisable, unchecked description of a
// parameter set; NewParams validates it. Primes are given either explicitly
// (Q, P) or by bit sizes (LogQ, LogP), in which case NewParams picks the
// largest unused primes of exactly that size that the transform accepts.
type ParamsLiteral struct {
	// Name identifies the set in files and messages.
	Name string
	// M is the cyclotomic index, an odd prime: R = Z[X]/Φ_m, φ(m) = m-1.
	M int
	// LogQ are the bit sizes of the ciphertext primes p_0, ..., p_L; p_0 is
	// the last one left (decryption happens there), p_L the first dropped.
	LogQ []int
	// LogP are the bit sizes of the special primes of key switching.
	LogP []int
	// Q and P, when non-empty, give the primes explicitly instead.
	Q, P []uint64
	// Digits is the number of digits of hybrid key switching (GHS 3.1 with
	// the digit decomposition they suggest): the ciphertext primes are cut
	// into Digits consecutive groups. 0 picks the smallest count whose
	// groups each have a product no larger than P (see keyswitch.go for why
	// that is the right size).
	Digits int
	// Insecure marks a Toy set (ring too small or modulus above the HE
	// standard's bound). NewParams refuses such sets outside tests unless
	// AllowInsecure is set. A secure-looking set whose modulus exceeds the
	// bound is refused the same way even if Insecure is false.
	Insecure bool
	// AllowInsecure lets NewParams accept an insecure set outside tests
	// (for a command-line --insecure flag).
	AllowInsecure bool
}

// The predefined parameter sets. Bit sizes are provisional: they fit the HE
// standard's bound and the transform's prime constraints (see NewParams); the
// per-level budget must be confirmed by the noise analysis of the scheme.
var (
	// ToyM17Literal: m = 17, φ = 16, d = 8, 2 slots of GF(2^8). Insecure.
	ToyM17Literal = ParamsLiteral{Name: "ToyM17", M: 17,
		LogQ: []int{36, 20, 20, 20}, LogP: []int{40}, Insecure: true}
	// ToyM257Literal: m = 257, φ = 256, d = 16, 16 slots of GF(2^16).
	// Insecure. Mixes auxiliary-mode primes (25 bits) and direct ones.
	ToyM257Literal = ParamsLiteral{Name: "ToyM257", M: 257,
		LogQ: []int{40, 25, 25, 25, 25, 30, 30}, LogP: []int{45, 45}, Insecure: true}
	// ToyM257DeepLiteral: m = 257 with a chain for the ripple adder adder64
	// (AND-depth 63, a carry shared by both operands of every product, the
	// noise estimate's worst case): 64 primes of 30 bits above a 40-bit p_0,
	// P = 4×60 bits. Insecure; for executor tests.
	ToyM257DeepLiteral = ParamsLiteral{Name: "ToyM257Deep", M: 257,
		LogQ: append([]int{40}, repeat(30, 64)...), LogP: repeat(60, 4), Insecure: true}
	// M8191Literal: m = 8191, φ = 8190, d = 13, 630 slots of GF(2^13), for
	// shallow circuits. log2(QP) ≈ 211 <= 217 (the bound for n = 8190, see
	// MaxLogQP). Level primes are 23-bit auxiliary-mode primes (≡ 1 mod m
	// only); p_0 and P are NTT-friendly (≡ 1 mod m·16384).
	M8191Literal = ParamsLiteral{Name: "M8191", M: 8191,
		LogQ: []int{36, 23, 23, 23, 23, 23}, LogP: []int{60}}
	// M65537Literal: m = 65537, φ = 2^16, d = 32, 2048 slots of GF(2^32);
	// AND-depth 41 by the noise policy's pessimistic simulation
	// (DepthAvailable), log2(QP) ≈ 1756 <= 1772. p_0 has 45 bits, then 21
	// primes of 59 bits (direct mode, ≡ 1 mod 2^16·m), and 8 special primes
	// of 59 bits, so that key switching needs 3 digits. Why this chain (see
	// keyswitch.go for the cost model): a transform costs the same for any
	// prime up to 61 bits, and with dynamic noise management one 59-bit
	// prime absorbs about two levels, so depth 41 needs 22 primes instead
	// of 41, which leaves P large enough for 3 digits: a key switch costs
	// ~148 transforms against ~529 for the phase-1 chain (41 primes of
	// 20-42 bits, 10 digits) and ~455 transform-equivalents for 41
	// two-auxiliary 28-bit primes (3 digits). Prime sizes from 36 to 60 bits
	// were compared: 40-52-bit primes give depth 25-35 at 3-5 digits (one
	// level per prime plus rounding granularity), 57-59 bits give 41-45.
	M65537Literal = ParamsLiteral{Name: "M65537", M: 65537,
		LogQ: append([]int{45}, repeat(59, 21)...),
		LogP: repeat(59, 8)}
)

// repeat expands (value, count) pairs.
func repeat(pairs ...int) []int {
	var out []int
	for i := 0; i+1 < len(pairs); i += 2 {
		for k := 0; k < pairs[i+1]; k++ {
			out = append(out, pairs[i])
		}
	}
	return out
}

// heStandard128 is the HomomorphicEncryption.org standard's table (v1.1,
// Nov. 2018, Table 1, uniform ternary secret, classical 128-bit security):
// the largest log2(q) for ring dimension n. The n = 65536 row (1772) is not
// in v1.1 (which stops at 32768); it is the extrapolation by doubling used by
// OpenFHE and Lattigo. The table is for power-of-two cyclotomics; for prime m
// we apply it to n = φ(m) (the LWE dimension), as HElib-style estimates do.
var heStandard128 = []struct{ n, logQ int }{
	{1024, 27}, {2048, 54}, {4096, 109}, {8192, 218},
	{16384, 438}, {32768, 881}, {65536, 1772},
}

// MaxLogQP returns the largest log2(QP) the HE standard allows at 128-bit
// security for LWE dimension n: linear interpolation between table rows,
// rounded down (e.g. 217 for n = 8190); 0 below n = 1024 (never secure);
// above 65536 the last row's 1772, conservatively (no extrapolation).
func MaxLogQP(n int) int {
	t := heStandard128
	if n < t[0].n {
		return 0
	}
	for i := len(t) - 1; i >= 0; i-- {
		if n == t[i].n {
			return t[i].logQ
		}
		if n > t[i].n {
			if i == len(t)-1 {
				return t[i].logQ
			}
			lo, hi := t[i], t[i+1]
			return lo.logQ + (hi.logQ-lo.logQ)*(n-lo.n)/(hi.n-lo.n)
		}
	}
	return 0
}

// ErrInsecure reports an insecure parameter set used outside tests.
var ErrInsecure = errors.New("bgv: insecure parameter set (allowed only with AllowInsecure)")

// insecureAllowedInTests lets this package's own tests build Toy sets
// without AllowInsecure (insecure_test.go sets it). Product code never sets
// it: the one switch for insecure sets is ParamsLiteral.AllowInsecure
// (hcc.Target.Insecure).
var insecureAllowedInTests bool

// Params is a validated, immutable parameter set with its precomputed
// transforms. Safe for concurrent use.
type Params struct {
	lit      ParamsLiteral
	m, n     int    // m and φ(m) = m-1
	d, slots int    // d = ord_m(2), slots = φ(m)/d
	g        uint64 // smallest generator of Z_m^*; evaluation points are ζ^(g^s)
	q, p     []uint64
	auxQ     uint64 // auxiliary NTT prime (≡ 1 mod N, largest below 2^61)
	plan     *ring.RaderPlan
	auxNTT   *ring.CyclicNTT64
	auxNTT2  *ring.CyclicNTT64 // second auxiliary NTT (two-auxiliary mode)
	ringQ    *Ring
	ringP    *Ring
	ringQP   *Ring  // the primes of Q then those of P, sharing ringQ's and ringP's transforms
	h        uint64 // slot generator: κ_h rotates the slots by one (see Encoder)
	digits   [][]int
	rns      []levelTables // per level, see rns.go
	ksLog    []float64     // per level, key switching's noise (ksLogEnergy)
	logQP    float64
	secure   bool
}

// NewParams validates lit, generates missing primes and precomputes the
// transforms of every prime.
func NewParams(lit ParamsLiteral) (*Params, error) {
	m := lit.M
	if m < 3 || m > 1<<17 || !ring.IsPrime(uint64(m)) {
		return nil, fmt.Errorf("bgv params %q: m = %d must be an odd prime in [3, 2^17]", lit.Name, m)
	}
	pr := &Params{lit: lit, m: m, n: m - 1}
	pr.d = ring.MultiplicativeOrder(2, uint64(m))
	pr.slots = pr.n / pr.d
	if pr.d > 63 {
		return nil, fmt.Errorf("bgv params %q: slot degree d = ord_m(2) = %d exceeds 63 (slot elements are held in a uint64)", lit.Name, pr.d)
	}
	pr.g = ring.SmallestGenerator(uint64(m))
	plan, err := ring.NewRaderPlan(m, pr.g)
	if err != nil {
		return nil, fmt.Errorf("bgv params %q: %w", lit.Name, err)
	}
	pr.plan = plan
	bigN := uint64(pr.plan.ConvLen())
	aux, err := ring.GeneratePrimes(maxModulusBits, bigN, 2, nil)
	if err != nil {
		return nil, fmt.Errorf("bgv params %q: auxiliary NTT primes: %w", lit.Name, err)
	}
	pr.auxQ = aux[0]
	if pr.auxNTT, err = ring.NewCyclicNTT64(pr.plan.ConvLen(), pr.auxQ); err != nil {
		return nil, fmt.Errorf("bgv params %q: %w", lit.Name, err)
	}
	if pr.auxNTT2, err = ring.NewCyclicNTT64(pr.plan.ConvLen(), aux[1]); err != nil {
		return nil, fmt.Errorf("bgv params %q: %w", lit.Name, err)
	}
	used := map[uint64]bool{pr.auxQ: true, aux[1]: true}
	if pr.q, err = pr.primes(lit.Q, lit.LogQ, used); err != nil {
		return nil, fmt.Errorf("bgv params %q: ciphertext primes: %w", lit.Name, err)
	}
	if len(pr.q) == 0 {
		return nil, fmt.Errorf("bgv params %q: no ciphertext primes", lit.Name)
	}
	if pr.p, err = pr.primes(lit.P, lit.LogP, used); err != nil {
		return nil, fmt.Errorf("bgv params %q: special primes: %w", lit.Name, err)
	}
	for _, v := range append(append([]uint64{}, pr.q...), pr.p...) {
		pr.logQP += math.Log2(float64(v))
	}
	pr.secure = !lit.Insecure && pr.logQP <= float64(MaxLogQP(pr.n))
	if !pr.secure && !lit.AllowInsecure && !insecureAllowedInTests {
		return nil, fmt.Errorf("bgv params %q (n = %d, log2 QP = %.1f, bound %d): %w",
			lit.Name, pr.n, pr.logQP, MaxLogQP(pr.n), ErrInsecure)
	}
	if pr.ringQ, err = newRing(pr, pr.q); err != nil {
		return nil, fmt.Errorf("bgv params %q: %w", lit.Name, err)
	}
	if len(pr.p) == 0 {
		return nil, fmt.Errorf("bgv params %q: no special primes (key switching needs them)", lit.Name)
	}
	if pr.ringP, err = newRing(pr, pr.p); err != nil {
		return nil, fmt.Errorf("bgv params %q: %w", lit.Name, err)
	}
	pr.ringQP = &Ring{params: pr, n: pr.n,
		moduli:     append(append([]modulus(nil), pr.ringQ.moduli...), pr.ringP.moduli...),
		transforms: append(append([]*ring.RaderNTT(nil), pr.ringQ.transforms...), pr.ringP.transforms...)}
	// Slot generator: h = g^d has order ℓ (exact rotations) when gcd(d, ℓ) = 1.
	pr.h = pr.g
	if gcd(pr.d, pr.slots) == 1 {
		pr.h = ring.PowMod(pr.g, uint64(pr.d), uint64(m))
	}
	if pr.digits, err = pr.digitPartition(lit.Digits); err != nil {
		return nil, fmt.Errorf("bgv params %q: %w", lit.Name, err)
	}
	pr.buildRNSTables()
	for t := range pr.q {
		pr.ksLog = append(pr.ksLog, pr.ksLogEnergy(t))
	}
	return pr, nil
}

// primes returns the explicit primes (checked) or generates them from bit
// sizes: a size small enough for the auxiliary NTT prime takes primes ≡ 1
// (mod m), a larger one primes ≡ 1 (mod m·N) (direct mode, see ring.RaderNTT).
func (pr *Params) primes(explicit []uint64, logs []int, used map[uint64]bool) ([]uint64, error) {
	if len(explicit) > 0 {
		for _, v := range explicit {
			if v >= 1<<maxModulusBits || !ring.IsPrime(v) {
				return nil, fmt.Errorf("%d is not a prime below 2^%d", v, maxModulusBits)
			}
			if used[v] {
				return nil, fmt.Errorf("prime %d used twice", v)
			}
			used[v] = true
		}
		return append([]uint64(nil), explicit...), nil
	}
	// Group equal sizes so that each group is generated once.
	count := map[int]int{}
	for _, b := range logs {
		if b < 2 || b > maxModulusBits {
			return nil, fmt.Errorf("prime size %d bits outside [2, %d]", b, maxModulusBits)
		}
		count[b]++
	}
	sizes := make([]int, 0, len(count))
	for b := range count {
		sizes = append(sizes, b)
	}
	sort.Ints(sizes)
	bySize := map[int][]uint64{}
	for _, b := range sizes {
		// Auxiliary mode if it fits, else direct mode (p ≡ 1 mod m·N), else
		// two-auxiliary mode if it fits (see ring.RaderNTT).
		top := (uint64(1) << uint(b)) - 1
		var ps []uint64
		var err error
		switch {
		case b <= maxModulusBits && pr.plan.FitsAuxiliary(top, pr.auxQ, 0):
			ps, err = ring.GeneratePrimes(b, uint64(pr.m), count[b], used)
		default:
			ps, err = ring.GeneratePrimes(b, uint64(pr.m)*uint64(pr.plan.ConvLen()), count[b], used)
			if err != nil && b <= maxModulusBits && pr.plan.FitsAuxiliary(top, pr.auxQ, pr.auxNTT2.Q()) {
				ps, err = ring.GeneratePrimes(b, uint64(pr.m), count[b], used)
			}
		}
		if err != nil {
			return nil, err
		}
		for _, v := range ps {
			used[v] = true
		}
		bySize[b] = ps
	}
	out := make([]uint64, len(logs))
	for i, b := range logs {
		out[i] = bySize[b][0]
		bySize[b] = bySize[b][1:]
	}
	return out, nil
}

// Literal returns the literal the parameters were built from.
func (pr *Params) Literal() ParamsLiteral { return pr.lit }

// Name returns the name of the parameter set.
func (pr *Params) Name() string { return pr.lit.Name }

// M returns the cyclotomic index m.
func (pr *Params) M() int { return pr.m }

// N returns the ring degree φ(m) = m-1 (number of coefficients and of evaluation points).
func (pr *Params) N() int { return pr.n }

// SlotDegree returns d = ord_m(2), the degree of every irreducible factor of
// Φ_m mod 2: each slot holds an element of GF(2^d).
func (pr *Params) SlotDegree() int { return pr.d }

// Slots returns ℓ = φ(m)/d, the number of plaintext slots.
func (pr *Params) Slots() int { return pr.slots }

// Generator returns g, the generator of Z_m^* that orders the evaluation points ζ^(g^s).
func (pr *Params) Generator() uint64 { return pr.g }

// Q returns a copy of the ciphertext primes p_0..p_L.
func (pr *Params) Q() []uint64 { return append([]uint64(nil), pr.q...) }

// P returns a copy of the special primes.
func (pr *Params) P() []uint64 { return append([]uint64(nil), pr.p...) }

// MaxLevel returns L: ciphertexts at level t live modulo p_0·…·p_t.
func (pr *Params) MaxLevel() int { return len(pr.q) - 1 }

// AuxPrime returns the auxiliary NTT prime used for small primes.
func (pr *Params) AuxPrime() uint64 { return pr.auxQ }

// LogQP returns log2 of the product of all primes (Q and P).
func (pr *Params) LogQP() float64 { return pr.logQP }

// Secure reports whether the set is not marked Insecure and its log2(QP) is
// within MaxLogQP(φ(m)).
func (pr *Params) Secure() bool { return pr.secure }

// RingQ returns the double-CRT ring over the ciphertext primes.
func (pr *Params) RingQ() *Ring { return pr.ringQ }

// RingP returns the double-CRT ring over the special primes (nil if none).
func (pr *Params) RingP() *Ring { return pr.ringP }

// RingQP returns the double-CRT ring over the ciphertext primes followed by
// the special primes: key-switching keys live there, and a level-t element
// of the extended basis uses rows 0..t and L+1..L+k of it.
func (pr *Params) RingQP() *Ring { return pr.ringQP }

// Digits returns the key-switching digit partition: digit j holds the
// indices of its (consecutive) ciphertext primes.
func (pr *Params) Digits() [][]int {
	out := make([][]int, len(pr.digits))
	for j, d := range pr.digits {
		out[j] = append([]int(nil), d...)
	}
	return out
}

// SlotGenerator returns h: κ_h rotates the plaintext slots left by one (see
// Encoder). h = g^d when gcd(d, ℓ) = 1, so that the rotation is exact on
// GF(2^d) values; otherwise h = g, which rotates bits exactly.
func (pr *Params) SlotGenerator() uint64 { return pr.h }

// RotationElement returns h^k mod m, the Galois element that rotates the
// slots left by k (negative k rotates right).
func (pr *Params) RotationElement(k int) uint64 {
	k %= pr.slots
	if k < 0 {
		k += pr.slots
	}
	return ring.PowMod(pr.h, uint64(k), uint64(pr.m))
}

// QBig returns p_0·…·p_level.
func (pr *Params) QBig(level int) *big.Int {
	return pr.ringQ.Modulus(level)
}

// literals are the predefined sets by name, in Names order.
var literals = []*ParamsLiteral{&ToyM17Literal, &ToyM257Literal, &ToyM257DeepLiteral, &M8191Literal, &M65537Literal}

// Names lists the predefined parameter sets, smallest ring first.
func Names() []string {
	out := make([]string, len(literals))
	for i, l := range literals {
		out[i] = l.Name
	}
	return out
}

// LiteralByName returns the predefined set called name.
func LiteralByName(name string) (ParamsLiteral, error) {
	for _, l := range literals {
		if l.Name == name {
			return *l, nil
		}
	}
	return ParamsLiteral{}, fmt.Errorf("bgv: unknown parameter set %q (available: %v)", name, Names())
}
