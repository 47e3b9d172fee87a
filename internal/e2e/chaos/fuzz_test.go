package chaos

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"
)

// FuzzCheck feeds arbitrary JSON to LoadHistory and whatever it accepts to
// Check and Print: a history is untrusted input (a file), and a malformed
// one must be reported as broken invariants, never a panic.
func FuzzCheck(f *testing.F) {
	// Seeds are one task each of the recorded histories (the first of
	// clean.json, and bad.json's result written twice and claim of a Failed
	// task): the fuzzer minimizes every new input it finds, and on a whole
	// 50 KB history that takes seconds each.
	for _, seed := range []struct{ file, task string }{
		{"clean.json", "0000001"}, {"bad.json", "0000003"}, {"bad.json", "0000006"},
	} {
		h, err := LoadHistoryFile(filepath.Join("testdata", seed.file))
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if err := onlyTask(h, h.RunID+"/"+seed.task).Write(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"submitted":["a"],"stream":[{"event":"MODIFY","taskId":"a","new":{"status":"Finished"}}]}`))
	f.Add([]byte(`{"stream":[{"event":"INSERT","taskId":"a"},{"event":"REMOVE","taskId":"a","old":{}}],"rows":[{"taskId":"a","attempts":-1}]}`))
	f.Add([]byte(`{"faults":{"config":{"kill":[{"rate":1}]},"stats":{"killsByRule":[5]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := LoadHistory(bytes.NewReader(data))
		if err != nil {
			return
		}
		r := Check(h)
		if err := r.Print(io.Discard); err != nil {
			t.Fatal(err)
		}
		for _, i := range r.Invariants {
			if i.Violations < 0 || len(i.Examples) > maxExamples {
				t.Fatalf("invariant %q: %d violations, %d examples", i.Name, i.Violations, len(i.Examples))
			}
		}
	})
}

// onlyTask is h reduced to one submitted task: its stream records, row
// and DLQ messages, with the poison and faults kept.
func onlyTask(h *History, id string) *History {
	out := &History{RunID: h.RunID, Submitted: []string{id}, Poison: h.Poison, Faults: h.Faults}
	for _, c := range h.Stream {
		if c.TaskID == id {
			out.Stream = append(out.Stream, c)
		}
	}
	for _, r := range h.Rows {
		if r.TaskID == id {
			out.Rows = append(out.Rows, r)
		}
	}
	for _, m := range h.DLQ {
		if m.TaskID == "" || m.TaskID == id {
			out.DLQ = append(out.DLQ, m)
		}
	}
	return out
}
