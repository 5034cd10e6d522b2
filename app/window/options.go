package window

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
)

// ErrNotBuilt is what Run answers in a binary built without the window.
var ErrNotBuilt = errors.New("this scouts was built without the desktop window; build it with make build " +
	"(go build -tags window,production,webkit2_41 needs GTK 3 and WebKit2GTK 4.1: build/deps.sh installs them)")

// Options configure the window.
type Options struct {
	// DataDir is the agent's data directory.
	DataDir string
	// View is the frontend view to open ("scouts", "tasks", …); empty
	// opens the inbox.
	View   string
	Logger *slog.Logger
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// validView accepts the frontend's route names only (they end up in a
// line of JavaScript).
func validView(v string) bool {
	if v == "" || len(v) > 32 {
		return false
	}
	for _, r := range v {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return true
}

// viewArg finds --view V (or --view=V) in a command line.
func viewArg(args []string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--view="); ok {
			return v
		}
		if (a == "--view" || a == "-view") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// instanceID names the window of one data directory: a second `scouts
// window` on the same data brings the first to the front instead.
func instanceID(dataDir string) string {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	sum := sha256.Sum256([]byte(abs))
	return "scouts-" + hex.EncodeToString(sum[:6])
}
