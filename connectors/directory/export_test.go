package directory

import (
	"os"
	"time"
)

// SetBeforeOpen installs a hook that runs between listing a file and
// opening it, so tests can make the file vanish in that window.
func SetBeforeOpen(c *Connector, fn func(rel string)) { c.hooks.beforeOpen = fn }

// SetOpenFile replaces how files are opened, so tests running as root can
// still see "permission denied".
func SetOpenFile(c *Connector, fn func(dir *os.Root, name string) (*os.File, error)) {
	c.hooks.open = fn
}

// SetAddWatch installs a hook that can make watching a directory fail.
func SetAddWatch(c *Connector, fn func(rel string) error) { c.hooks.addWatch = fn }

// SetSettleDelay installs a hook that sees every delay the connector waits
// before rescanning files left for later.
func SetSettleDelay(c *Connector, fn func(d time.Duration)) { c.hooks.settleDelay = fn }

// SettleSlack is what a rescan waits past the instant a file settles.
const SettleSlack = settleSlack
