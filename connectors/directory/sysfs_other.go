//go:build !linux

package directory

// pseudoFS reports the kind of pseudo-filesystem the folder at path is on;
// outside Linux the well-known mount points (systemFolders) stand in.
func pseudoFS(string) (string, bool) { return "", false }
