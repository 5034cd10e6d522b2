package localdb

import (
	"context"

	"github.com/scouts-hq/scouts/scouts"
)

// StartRunIn records a run as running in another process p, as an agent
// that since died (or still runs) left it.
func (d *DB) StartRunIn(ctx context.Context, r scouts.Run, p LockHolder) error {
	return d.startRun(ctx, r, p)
}
