package core

// Router is the application's routing: the master it writes to, given where it writes now
// (cur; -1 for nowhere) and which of the n nodes can take its writes now (usable: a writable
// master, in service, that the application reaches). -1 is none: its writes fail. It is a
// rule the core is given, as the engine is given its candidate rule (fence.CandidateRule): a
// connector that routes by its own rules is another Router.
type Router func(cur, n int, usable func(i int) bool) int

// Sticky is the default Router, the application of the simulator's client (docs/engine.md,
// "The client's view during a partition"): it keeps writing where it writes while that node
// can take its writes, else it writes to the first node in cluster order that can.
func Sticky(cur, n int, usable func(i int) bool) int {
	if cur >= 0 && usable(cur) {
		return cur
	}
	for i := range n {
		if usable(i) {
			return i
		}
	}
	return -1
}

// SetRouter sets the application's routing; nil is Sticky.
func (k *Core) SetRouter(r Router) { k.router = r }

// Route is where the application writes next, by the core's Router: see Router.
func (k *Core) Route(cur int, usable func(i int) bool) int {
	if k.router == nil {
		return Sticky(cur, k.e.Len(), usable)
	}
	return k.router(cur, k.e.Len(), usable)
}
