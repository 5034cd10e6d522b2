//go:build !linux && !windows

package tray

import (
	"context"
	"errors"
)

// startIcon: on macOS the tray cannot share a process with Wails' app
// delegate; it will be its own small process (not built yet).
func startIcon(ctx context.Context, c *controller) (stop func(), err error) {
	return nil, errors.New("the tray icon is not available on this system yet")
}
