package agent

import "log/slog"

// makePrivate does nothing on Windows: the data directory is in the user's
// profile, whose ACLs keep other users out; permission bits mean little.
func makePrivate(string, *slog.Logger) error { return nil }
