// Package replica does to real MariaDB servers what failsim's replication model (package repl)
// says the manager does, for the live side of a replay: it stops and starts a replica's
// replicator (STOP SLAVE, START SLAVE), makes its applier late (MASTER_DELAY, whole seconds),
// reads each server's stored and applied GTID positions, ranks the replicas with the model's
// own rule (repl.Best: the highest stored position, then the lowest precedence, then cluster
// order) and promotes the winner: it stops receiving, applies what it stored (for at most an
// apply wait), forgets its master (RESET SLAVE ALL) and turns read_only off; the old master is
// set read_only when it answers, and every other replica is pointed at the new master with
// MASTER_USE_GTID=slave_pos.
//
// A position is a count of transactions: the sequence number of GTID domain 0 (every write of
// failsim's writer is one transaction in domain 0, and a cluster starts with none). A replica's
// stored position is what its I/O thread received (Gtid_IO_Pos), its applied position what
// its SQL thread applied (gtid_slave_pos); a master's are both its binary log's
// (gtid_binlog_pos).
//
// Every call takes a *sql.DB of a user with the privileges docs/live.md lists (REPLICATION
// SLAVE ADMIN, REPLICA MONITOR, READ_ONLY ADMIN on MariaDB 10.11) and a context that bounds it.
package replica
