package directory

import "github.com/scouts-hq/scouts/connectors/directory/dirindex"

// The index's types live in the leaf package dirindex, so that the storage
// implementing Index (app/localdb) sees them without linking the connector;
// these names keep the connector's own code reading as before.
type (
	EntryType  = dirindex.EntryType
	Entry      = dirindex.Entry
	EntryKey   = dirindex.EntryKey
	IndexBatch = dirindex.IndexBatch
	IndexPut   = dirindex.IndexPut
	Index      = dirindex.Index
)

const (
	TypeFile    = dirindex.TypeFile
	TypeDir     = dirindex.TypeDir
	TypeSymlink = dirindex.TypeSymlink
	TypeProblem = dirindex.TypeProblem
)
