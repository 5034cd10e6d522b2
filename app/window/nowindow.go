//go:build !window

package window

import "context"

// Built reports whether this binary has the desktop window.
const Built = false

// Run answers ErrNotBuilt: this binary was built without the window.
func Run(ctx context.Context, opts Options) error { return ErrNotBuilt }
