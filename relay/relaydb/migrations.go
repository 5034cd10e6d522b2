package relaydb

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/scouts-hq/scouts/store"
)

// The migrations are written once for both dialects. Where SQLite and
// PostgreSQL spell a column type differently, a migration names it by a
// word in braces, which dialectWords spells for the database opened.
// The words reproduce exactly what each dialect's own files used to say,
// so that a database made before they were shared has the schema of a new
// one (TestOldDatabaseHasTheNewSchema).
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

var dialectWords = map[store.Dialect][]string{
	store.SQLite: {
		"{bytes}", "BLOB",
		"{serial_key}", "INTEGER PRIMARY KEY AUTOINCREMENT",
		"{int64}", "INTEGER",
	},
	store.Postgres: {
		"{bytes}", "BYTEA",
		"{serial_key}", "BIGSERIAL PRIMARY KEY",
		"{int64}", "BIGINT",
	},
}

// aWord finds a word left unspelled: a typo in a migration, caught when
// it is read rather than as a syntax error in the middle of a migration.
var aWord = regexp.MustCompile(`\{[a-z0-9_]+\}`)

// migrations returns the migrations in dialect d's words.
func migrations(d store.Dialect) (fs.FS, error) {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	words, ok := dialectWords[d]
	if !ok {
		return nil, fmt.Errorf("migrations: no words for dialect %q", d)
	}
	return dialectFS{FS: sub, words: strings.NewReplacer(words...)}, nil
}

// dialectFS is the migrations' folder whose files read in one dialect's
// words.
type dialectFS struct {
	fs.FS
	words *strings.Replacer
}

func (f dialectFS) ReadFile(name string) ([]byte, error) {
	b, err := fs.ReadFile(f.FS, name)
	if err != nil {
		return nil, err
	}
	s := f.words.Replace(string(b))
	if w := aWord.FindString(s); w != "" {
		return nil, fmt.Errorf("%s: %s is not a dialect word (see dialectWords)", name, w)
	}
	return []byte(s), nil
}
