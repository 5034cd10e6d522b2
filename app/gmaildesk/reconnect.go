package gmaildesk

import (
	"errors"
	"strings"

	"github.com/scouts-hq/scouts/connectors/gmail"
)

// authSaid is how a refused Gmail access reads in a run's error: the
// connector's AuthError (local and relay-ping scouts) or the relay's word
// on a relay-triage scout ("Gmail access expired — reconnect").
var authSaid = []string{
	strings.TrimSuffix((&gmail.AuthError{Err: errors.New("")}).Error(), ": "),
	"Gmail access expired — reconnect",
}

// NeedsReconnect reports whether a Gmail scout's run failed because its
// account's access expired or was revoked: only reconnecting the account
// helps (a run's error is kept as text in its history).
func NeedsReconnect(runError string) bool {
	for _, s := range authSaid {
		if strings.Contains(runError, s) {
			return true
		}
	}
	return false
}

// watchSaid is how a failed renewal of a relay-ping scout's Gmail watch
// reads in a run's error (connectors/gmail's ensureWatch).
const watchSaid = "gmail: renew the watch"

// WatchNotRenewed reports whether a Gmail scout's run failed because its
// mailbox's watch could not be set up or renewed (without it the relay
// hears of no new mail and the scout falls back to polling). An access
// refused reads as NeedsReconnect instead.
func WatchNotRenewed(runError string) bool {
	return strings.Contains(runError, watchSaid) && !NeedsReconnect(runError)
}
