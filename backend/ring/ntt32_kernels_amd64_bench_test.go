//go:build amd64 && !purego

package ring

import "testing"

// BenchmarkNTT32Kernels times the vector kernels of one N = 2048 transform
// separately (the CBS prime Q0): the outer stages t >= 128 (Harvey and
// noXRed), the fused block kernel of the last seven stages, and the
// inverse's head and outer stages. In place on one buffer, so the data
// stay in the cache as in the transforms.
func BenchmarkNTT32Kernels(b *testing.B) {
	r, a, out := benchNTT32(b, 2048, 134176769)
	copy(out, a)
	N := r.N
	psi, psiS := &r.psiRev[0], &r.psiRevShoup[0]
	b.Run("fwdStages", func(b *testing.B) {
		for b.Loop() {
			for m, t := 1, N/2; t >= 128; m, t = 2*m, t/2 {
				fwdStage32AVX512(&out[0], &out[0], m, t, psi, psiS, r.Q)
			}
		}
	})
	b.Run("fwdStagesNR", func(b *testing.B) {
		for b.Loop() {
			for m, t := 1, N/2; t >= 128; m, t = 2*m, t/2 {
				fwdStageNR32AVX512(&out[0], &out[0], m, t, psi, psiS, r.Q)
			}
		}
	})
	b.Run("fwdTail", func(b *testing.B) {
		for b.Loop() {
			fwdTail32AVX512(&out[0], &out[0], N, psi, psiS, &avxTables[0], &r.tailTw[0], r.Q, r.Q)
		}
	})
	b.Run("fwdTailNR", func(b *testing.B) {
		for b.Loop() {
			fwdTailNR32AVX512(&out[0], &out[0], N, psi, psiS, &avxTables[0], &r.tailTw[0], r.Q, r.br)
		}
	})
	ipsi, ipsiS := &r.psiInvRev[0], &r.psiInvRevShoup[0]
	b.Run("invHead", func(b *testing.B) {
		for b.Loop() {
			invHead32AVX512(&out[0], &out[0], N, ipsi, ipsiS, &avxTables[0], &r.tailTwInv[0], r.Q, 1)
		}
	})
	b.Run("invStages", func(b *testing.B) {
		for b.Loop() {
			for m, t := N/256, 128; t < N/2; m, t = m/2, 2*t {
				invStage32AVX512(&out[0], m, t, ipsi, ipsiS, r.Q)
			}
		}
	})
}
