package queue

import "container/heap"

// A queue keeps its messages in three indexed min-heaps so that receive,
// delete, visibility changes and retention expiry cost O(log n) instead of
// a scan:
//
//   - ready:   visible messages, ordered by the time they became visible;
//   - pending: delayed and in-flight messages, ordered by when they become
//     visible;
//   - age:     every message, ordered by enqueue time, for retention.
type heapKind uint8

const (
	kindReady heapKind = iota
	kindPending
	kindAge
	numHeapKinds
)

type msgHeap struct {
	kind  heapKind
	items []*message
}

func (h *msgHeap) Len() int { return len(h.items) }

func (h *msgHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	var ka, kb int64
	if h.kind == kindAge {
		ka, kb = a.enqueued, b.enqueued
	} else {
		ka, kb = a.visibleAt, b.visibleAt
	}
	if ka != kb {
		return ka < kb
	}
	return a.seq < b.seq
}

func (h *msgHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].idx[h.kind] = i
	h.items[j].idx[h.kind] = j
}

// Push implements heap.Interface; use push.
func (h *msgHeap) Push(x any) {
	m := x.(*message)
	m.idx[h.kind] = len(h.items)
	h.items = append(h.items, m)
}

// Pop implements heap.Interface; use pop.
func (h *msgHeap) Pop() any {
	n := len(h.items) - 1
	m := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	m.idx[h.kind] = -1
	return m
}

func (h *msgHeap) push(m *message)   { heap.Push(h, m) }
func (h *msgHeap) pop() *message     { return heap.Pop(h).(*message) }
func (h *msgHeap) remove(m *message) { heap.Remove(h, m.idx[h.kind]) }
func (h *msgHeap) fix(m *message)    { heap.Fix(h, m.idx[h.kind]) }

func (h *msgHeap) peek() *message {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}
