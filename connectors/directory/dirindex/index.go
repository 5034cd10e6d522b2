// Package dirindex is a folder scout's persistent memory of its tree, as
// the folder connector (connectors/directory) reads and writes it: the
// entries it has seen and the interface storage implements. It is a leaf
// (it imports only the standard library) so that storage (app/localdb)
// implements the index without linking the connector, and the connector
// reads its index without knowing the storage.
package dirindex

import "context"

// EntryType is what an index entry records.
type EntryType string

const (
	TypeFile    EntryType = "f"
	TypeDir     EntryType = "d"
	TypeSymlink EntryType = "l"
	// TypeProblem is a file that could not be read (or otherwise could not
	// become an item); it is recorded so the problem is reported once, not
	// on every rescan, and retried when the file changes.
	TypeProblem EntryType = "x"
)

// Entry is the scout's memory of one directory entry.
type Entry struct {
	Name    string
	Type    EntryType
	Size    int64
	MtimeNs int64
	// Hash is the hex SHA-256 of the content (of its first MaxHashBytes for
	// huge files); empty when the file was recorded without reading it.
	// For TypeProblem it is a fingerprint of the entry's type and
	// permissions, so that a chmod retries the entry as a change of size or
	// modification time does.
	Hash string
}

// EntryKey names an entry: its directory relative to the root (slash
// separated, "" for the root) and its name.
type EntryKey struct {
	Dir  string
	Name string
}

// IndexBatch is a set of index changes applied in one transaction.
type IndexBatch struct {
	Put    []IndexPut
	Delete []EntryKey
	// DeleteTrees removes every entry at or below these directories.
	DeleteTrees []string
}

// IndexPut records one entry.
type IndexPut struct {
	Dir   string
	Entry Entry
}

// Index is a folder scout's persistent cursor: what it has seen of its
// tree. It is keyed by directory so that a scan holds one directory's
// worth in memory, never the whole tree.
type Index interface {
	// LoadDir returns the recorded entries of dir, keyed by name.
	LoadDir(ctx context.Context, dir string) (map[string]Entry, error)
	// Apply writes a batch of changes atomically.
	Apply(ctx context.Context, b IndexBatch) error
	// Cursor and SetCursor keep small named values (the baseline marker).
	Cursor(ctx context.Context, name string) (string, error)
	SetCursor(ctx context.Context, name, value string) error
}
