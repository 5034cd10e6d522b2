// Package frontend is the Scouts web UI (Preact + TypeScript, built with
// npm into dist/). The built files are embedded into the binary; on a clean
// clone before `make build` ran, dist/ holds only a placeholder and the
// agent answers that the UI is not built.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Dist is the built UI, rooted at index.html.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // "dist" is a valid name: cannot happen
	}
	return sub
}
