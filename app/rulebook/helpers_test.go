package rulebook_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/coretest"
	"github.com/scouts-hq/scouts/scouts"
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

func folderScout(t *testing.T, c *core.Core, dir string, b scouts.Budget) scouts.Scout {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"path": dir, "include_existing": true, "settle": "1ms"})
	cr, err := c.CreateScout(context.Background(), core.NewScout{Kind: scouts.KindFolder, Name: "Docs", Review: true, Enabled: true,
		Config: cfg, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	return cr.Scout
}
