package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/scouts-hq/scouts/relay/relaydb"
)

// databaseHelp describes --database's default for the flag's help.
const databaseHelp = "SQLite file or postgres:// URL (default: relay.db in $STATE_DIRECTORY under systemd, else in $XDG_STATE_HOME/scouts-relay, ~/.local/state/scouts-relay without it)"

// defaultDatabase is where the relay keeps its SQLite database when
// --database is not given: its state directory, the same from every
// working directory (a path relative to it made the admin commands run
// elsewhere find no user and leave an empty database behind).
func defaultDatabase(getenv func(string) string) (string, error) {
	// systemd's StateDirectory= sets it, colon-separated when it names several.
	if d, _, _ := strings.Cut(getenv("STATE_DIRECTORY"), ":"); d != "" {
		return filepath.Join(d, "relay.db"), nil
	}
	// The XDG base directory spec: a relative value is to be ignored.
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "scouts-relay", "relay.db"), nil
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "scouts-relay", "relay.db"), nil
	}
	return "", errors.New("no state directory to keep the database in: set XDG_STATE_HOME or HOME, or pass --database")
}

// databaseFlag is the --database flag, resolved after parsing: empty
// means the default.
type databaseFlag struct {
	dsn      *string
	explicit bool
}

func addDatabaseFlag(f *flagSet) *databaseFlag {
	return &databaseFlag{dsn: f.String("database", "", databaseHelp)}
}

// resolve returns the database to use: the flag's (or
// SCOUTS_RELAY_DATABASE's) value, else the default path.
func (d *databaseFlag) resolve(getenv func(string) string) (string, error) {
	if *d.dsn != "" {
		d.explicit = true
		return *d.dsn, nil
	}
	return defaultDatabase(getenv)
}

// sqlitePath is dsn's file path, or "" for PostgreSQL.
func sqlitePath(dsn string) string {
	if relaydb.IsPostgres(dsn) {
		return ""
	}
	return strings.TrimPrefix(dsn, "sqlite:")
}

// openExisting opens the database of a relay that has run: an admin
// command given the wrong path (or run where the default is not the
// relay's) must say where it looked, not create an empty database there
// and report every user missing.
func openExisting(ctx context.Context, dsn string) (*relaydb.DB, error) {
	if p := sqlitePath(dsn); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", p, err)
		}
		if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no relay database at %s; start `scouts-relay serve` first or pass --database", abs)
		} else if err != nil {
			return nil, fmt.Errorf("database: %w", err)
		}
	}
	return relaydb.Open(ctx, dsn)
}

// openForServe opens the relay's database, creating it (and, for the
// default path, its state directory) if it does not exist, and says so in
// the log: a new database where one was expected is how a wrong path shows.
func openForServe(ctx context.Context, d *databaseFlag, dsn string, log *slog.Logger) (*relaydb.DB, error) {
	p := sqlitePath(dsn)
	created := false
	if p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", p, err)
		}
		p = abs
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			created = true
			if !d.explicit {
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					return nil, fmt.Errorf("state directory: %w", err)
				}
			}
		} else if err != nil {
			return nil, fmt.Errorf("database: %w", err)
		}
	}
	db, err := relaydb.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if created {
		log.Info("created a new relay database", "path", p)
	} else if p != "" {
		log.Info("opened the relay database", "path", p)
	}
	return db, nil
}
