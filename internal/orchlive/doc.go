// Package orchlive holds the conformance test of failsim's Orchestrator model (packages
// orchestrator and orchcore, sim.ReplayOrchestratorReplicas) against a real Orchestrator, built
// from the tarball in ../shared/third_party and pointed at a replicated MariaDB cluster
// through failsim's proxies with topology rewriting on. It has no code of its own outside its
// tests: see docs/live.md, "Orchestrator, live".
package orchlive
