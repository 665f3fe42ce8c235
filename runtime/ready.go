package runtime

import (
	"container/heap"
	"sync"

	"github.com/hcc-fhe/hcc/ir"
)

// readyQueue holds the nodes whose fanins are all computed. The dispatcher
// takes the lowest node index first rather than the oldest: nodes are in
// topological order, and a builder emits them roughly in program order
// (round by round for AES), so this keeps the run close to that order and
// the number of live ciphertexts near one stage's width. A FIFO would
// instead sweep the circuit breadth first and keep every stage's values
// alive at once, which on BGV at m = 65537 (23 MB per top-level ciphertext)
// is the difference between fitting in memory or not.
type readyQueue struct {
	mu     sync.Mutex
	ids    nodeHeap
	signal chan struct{} // capacity 1: "something was pushed"
}

func newReadyQueue(capacity int) *readyQueue {
	return &readyQueue{ids: make(nodeHeap, 0, capacity), signal: make(chan struct{}, 1)}
}

// push adds a ready node and wakes the dispatcher if it is waiting.
func (q *readyQueue) push(id ir.NodeID) {
	q.mu.Lock()
	heap.Push(&q.ids, id)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// pop removes and returns the lowest ready node, if any.
func (q *readyQueue) pop() (ir.NodeID, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.ids) == 0 {
		return 0, false
	}
	return heap.Pop(&q.ids).(ir.NodeID), true
}

// nodeHeap is a min-heap of node IDs (container/heap).
type nodeHeap []ir.NodeID

func (h nodeHeap) Len() int           { return len(h) }
func (h nodeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h nodeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)        { *h = append(*h, x.(ir.NodeID)) }
func (h *nodeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
