package hcc

import (
	"sync"

	"github.com/hcc-fhe/hcc/backend/fhew"
)

// memoLUTTarget is an fhew.LUTTarget whose CanEvalLUT answers are
// remembered: the LUT mapper asks about the same tables in every round of
// its cut enumeration and in each of its covers, and every answer costs a
// weight search and a noise-model evaluation. All other methods (PARITY
// width, multi-output groups, gate costs) are the embedded target's, so the
// mapper sees the same capability and produces the same circuit. Only the
// compile uses it; validation and the evaluator keep the plain target.
type memoLUTTarget struct {
	fhew.LUTTarget
	known *sync.Map // lutQuery -> bool
}

type lutQuery struct {
	table uint64
	k     int
}

func newMemoLUTTarget(t fhew.LUTTarget) memoLUTTarget {
	return memoLUTTarget{LUTTarget: t, known: &sync.Map{}}
}

// CanEvalLUT is fhew.LUTTarget.CanEvalLUT, computed once per table.
func (t memoLUTTarget) CanEvalLUT(table uint64, k int) bool {
	q := lutQuery{table, k}
	if ok, found := t.known.Load(q); found {
		return ok.(bool)
	}
	ok := t.LUTTarget.CanEvalLUT(table, k)
	t.known.Store(q, ok)
	return ok
}
