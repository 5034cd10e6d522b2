package defdraft_test

import (
	"testing"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/coretest"
)

// openCoreWith opens and starts a core with cfg.
func openCoreWith(t *testing.T, cfg core.Config) (*core.Core, *bus.Subscription) {
	t.Helper()
	return coretest.Open(t, cfg)
}
