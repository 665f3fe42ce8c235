package cluster

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc"
)

// TestWorkerThreads: NewWorker refuses more threads per task than
// hcc.Eval accepts, naming the limit, and accepts the limit itself and 0.
func TestWorkerThreads(t *testing.T) {
	m := hcc.MaxThreads()
	_, err := NewWorker(nil, WorkerConfig{Engine: toyEngine{}, Threads: m + 1})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("use at most %d", m)) {
		t.Errorf("Threads %d: %v", m+1, err)
	}
	for _, n := range []int{0, 1, m} {
		if _, err := NewWorker(nil, WorkerConfig{Engine: toyEngine{}, Threads: n}); err != nil {
			t.Errorf("Threads %d: %v", n, err)
		}
	}
}
