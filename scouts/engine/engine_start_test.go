package engine_test

import (
	"testing"

	"github.com/scouts-hq/scouts/scouts/engine"
)

// TestNewEngineCompilesNoSchema: making the engine compiles nothing of
// the action catalogue (every action's JSON Schema: about 5 400
// allocations, 350 KB at every start of the agent); the catalogue is
// compiled when an action is first planned.
func TestNewEngineCompilesNoSchema(t *testing.T) {
	allocs := testing.AllocsPerRun(1, func() {
		engine.New(engine.Config{})
	})
	if allocs > 200 {
		t.Errorf("New made %.0f allocations, more than 200", allocs)
	}
}
