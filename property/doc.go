// Package property holds failsim check's built-in properties: statements about a run of the
// decision engine that must hold whatever the faults, each judged by observing one run.
//
// A property (Property) is told the run's events as they are decided, and says after each
// whether it must look at the engine at the end of the instant; it keeps the first violation it
// finds, stamped with the virtual clock time it was found at. What the engine holds (roles,
// alarms, managers, the coordinator, the policy) a property reads from the engine's views when
// it looks: it keeps no copy of its own. What the end of an instant no longer shows it takes from
// the events: the moment a decision was made (who was up when an alarm was acted on, the policy
// when a node was fenced), and the faults on the links, which are the driver's notes, not
// engine state. It looks only where something it judges may have changed, and a Set, the
// drive.Observer that runs properties, calls it only then: failsim check judges thousands of
// runs a second.
//
// Each property is one file: no-false-failover (nofalsefailover.go), detects-death-within
// (detectsdeath.go), single-master (singlemaster.go), no-fence-in-maintenance
// (nofenceinmaintenance.go), only-coordinator-fences (onlycoordinator.go) and self-heal-resets
// (selfheal.go). A Spec names one with its argument, as "expect property NAME ARG" and failsim
// check's --property NAME=ARG state it; New makes a fresh one for one run; a Set judges one or
// several over one run as one observer.
//
// The same code judges a property wherever it is stated: failsim check judges its generated
// traces with it, and a timeline's "expect property" lines are judged with it too, so a
// counterexample that failsim check writes fails the same way under failsim replay.
package property
