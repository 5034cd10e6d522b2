package defsync_test

import (
	"testing"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/coretest"
)

// openCoreIn opens and starts a core whose data directory is dataDir.
func openCoreIn(t *testing.T, dataDir string) (*core.Core, *bus.Subscription) {
	t.Helper()
	return coretest.Open(t, core.Config{DataDir: dataDir})
}

func openCoreWith(t *testing.T, cfg core.Config) (*core.Core, *bus.Subscription) {
	t.Helper()
	return coretest.Open(t, cfg)
}
