package repl

// Entry is one run of acknowledged writes in the ledger: Count writes at positions First.. of
// the history master Master started, issued as writes FirstWrite.. of the workload, and
// whether a failover or merge lost them.
type Entry struct {
	Master     int
	First      int64
	Count      int64
	FirstWrite int64
	Lost       bool
}

// Ledger returns the acknowledged writes so far, as runs, history by history in the order they
// were started, each in position order.
func (m *Model) Ledger() []Entry {
	n := 0
	for _, h := range m.hists {
		n += len(h.acked)
	}
	if n == 0 {
		return nil
	}
	out := make([]Entry, 0, n) // made once: the end of every check trace makes one
	for _, h := range m.hists {
		for _, r := range h.acked {
			out = append(out, Entry{Master: h.owner, First: r.p0, Count: r.n, FirstWrite: r.k0, Lost: r.lost})
		}
	}
	return out
}
