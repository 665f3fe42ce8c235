package bgv

import (
	"math/bits"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

func TestMaxLogQP(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{512, 0}, {1024, 27}, {8190, 217}, {8192, 218}, {32768, 881}, {65536, 1772}, {131072, 1772},
	} {
		if got := MaxLogQP(tc.n); got != tc.want {
			t.Errorf("MaxLogQP(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

func TestParamsPredefined(t *testing.T) {
	for _, tc := range []struct {
		lit             ParamsLiteral
		d, slots        int
		secure          bool
		levels, special int
	}{
		{ToyM17Literal, 8, 2, false, 4, 1},
		{ToyM257Literal, 16, 16, false, 7, 2},
		{M8191Literal, 13, 630, true, 6, 1},
	} {
		pr := testParams(t, tc.lit)
		if pr.SlotDegree() != tc.d || pr.Slots() != tc.slots {
			t.Errorf("%s: d = %d, slots = %d; want %d, %d", pr.Name(), pr.SlotDegree(), pr.Slots(), tc.d, tc.slots)
		}
		if pr.Secure() != tc.secure {
			t.Errorf("%s: Secure() = %v, want %v (log2 QP = %.1f, bound %d)", pr.Name(), pr.Secure(), tc.secure, pr.LogQP(), MaxLogQP(pr.N()))
		}
		if len(pr.Q()) != tc.levels || len(pr.P()) != tc.special {
			t.Errorf("%s: %d ciphertext and %d special primes, want %d and %d", pr.Name(), len(pr.Q()), len(pr.P()), tc.levels, tc.special)
		}
		m := uint64(pr.M())
		seen := map[uint64]bool{}
		for i, logs := range [][]int{tc.lit.LogQ, tc.lit.LogP} {
			primes := [][]uint64{pr.Q(), pr.P()}[i]
			for k, p := range primes {
				if (p-1)%m != 0 || !ring.IsPrime(p) || seen[p] {
					t.Errorf("%s: prime %d is not a fresh prime ≡ 1 mod m", pr.Name(), p)
				}
				seen[p] = true
				if bl := 64 - bits.LeadingZeros64(p); bl != logs[k] {
					t.Errorf("%s: prime %d has %d bits, want %d", pr.Name(), p, bl, logs[k])
				}
			}
		}
		if g := pr.Generator(); ring.MultiplicativeOrder(g, m) != pr.N() {
			t.Errorf("%s: generator %d has order %d", pr.Name(), g, ring.MultiplicativeOrder(g, m))
		}
	}
}

// TestParamsM65537Literal checks the large set's budget: the primes fit the
// HE standard's bound for n = 2^16 and the chain supports AND-depth 40
// (AES-128 after depth optimisation) by the noise estimate.
func TestParamsM65537Literal(t *testing.T) {
	pr := testParams(t, M65537Literal)
	if pr.LogQP() > float64(MaxLogQP(65536)) || !pr.Secure() {
		t.Errorf("M65537: log2 QP = %.1f exceeds %d", pr.LogQP(), MaxLogQP(65536))
	}
	if d := pr.DepthAvailable(); d < 40 {
		t.Errorf("M65537: depth available %d, want >= 40", d)
	}
	if len(pr.Digits()) != 3 {
		t.Errorf("M65537: %d key-switching digits, want 3", len(pr.Digits()))
	}
}

func TestParamsErrors(t *testing.T) {
	for _, tc := range []struct {
		lit  ParamsLiteral
		want string
	}{
		{ParamsLiteral{Name: "x", M: 15, LogQ: []int{30}}, "must be an odd prime"},
		{ParamsLiteral{Name: "x", M: 2, LogQ: []int{30}}, "must be an odd prime"},
		{ParamsLiteral{Name: "x", M: 17}, "no ciphertext primes"},
		{ParamsLiteral{Name: "x", M: 17, Q: []uint64{101}}, "not 1 mod m"},
		{ParamsLiteral{Name: "x", M: 17, Q: []uint64{100}}, "not a prime"},
		{ParamsLiteral{Name: "x", M: 17, Q: []uint64{103, 103}}, "used twice"},
		{ParamsLiteral{Name: "x", M: 65537, LogQ: []int{16}}, "no 16-bit primes"},
		{ParamsLiteral{Name: "x", M: 17, LogQ: []int{30}}, "no special primes"},
		{ParamsLiteral{Name: "x", M: 17, LogQ: []int{62}}, "outside [2, 61]"},
	} {
		_, err := NewParams(tc.lit)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewParams(M=%d, Q=%v, LogQ=%v) error = %v, want it to contain %q", tc.lit.M, tc.lit.Q, tc.lit.LogQ, err, tc.want)
		}
	}
}
