// Package writer is the application's side of a live replay: an open-model writer on real
// MySQL servers, and the ledger of what it was told was written.
//
// The writer issues write k at floor(k·Per/Writes) after its start (repl.Rate.At), on the
// wall clock, whatever became of the writes before it: a slow or dead master never makes it
// write less. Each write is one INSERT of a ledger row whose id is k, through
// go-sql-driver/mysql, to the server the master-of-record callback names at the moment it is
// issued, with its own deadline; it is never retried (database/sql re-dials only when the
// driver reports that nothing was sent). A write is acknowledged when the INSERT returned
// success within the deadline.
//
// Afterwards Lost reads the ledger back from the final master: every acknowledged id missing
// from it is a lost write. Summarize gives the client's view as the replication model computes
// it (repl.Summary): writes offered, acknowledged and failed, the longest run with no
// acknowledged write, and the unavailable time the failed writes stand for at the rate.
package writer
