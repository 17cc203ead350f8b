// Package layout holds no code: its test pins the direction of the imports between failsim's
// packages, so that no change can make the decision core depend on an adapter, or an adapter
// on another, without the test saying so.
//
// The packages stand in layers, each importing only from the layers below it:
//
//	cmd/failsim · cmd/failsim-mysqld            the commands
//	sweep                                       a grid of settings, on check's traces
//	check                                       property testing, on the simulator
//	sim · monitor                               the simulation and live adapters
//	proxy · internal/embedded · internal/mysqld the wire
//	report > expect > timeline > property       what a run is judged and told by
//	timing                                      the fault model's timing, in closed form
//	faultmodel · narrate                        the fault model · a run's words
//	drive                                       the one scheduler
//	fence · group · repl                        the decision core, pure
//	statemap · fault · fileline · conf · ...    the vocabulary
//
// The test's table gives each package its rank; a package it does not know fails the test
// until it is placed.
package layout
