// Package chaos is the crash suite: it builds the real binaries (scouts,
// scouts-relay), runs them on loopback with real databases (SQLite, and a
// private PostgreSQL cluster it creates itself) and the Google fakes, and
// breaks things while items flow — SIGKILL of the relay and of the agent
// at random points of ingest and drain, PostgreSQL restarted under load,
// duplicate, reordered and stale Gmail pushes, a crash between a Gmail
// change and its record. Each scenario counts what was accepted, what
// reached the desktop, what was lost and what was duplicated; the wanted
// answer is 0 and 0.
//
// The tests carry the build tag chaos, so `go test ./...` never runs them:
//
//	make chaos                 # go test -tags chaos -v ./app/chaos/
//	CHAOS_SEED=42 make chaos   # replay a run's kill points
//
// See docs/chaos.md for the scenarios and the latest table.
package chaos
