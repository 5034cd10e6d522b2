//go:build !unix

package directory

// openFlags are added when a file is opened for reading. This platform has
// no O_NOFOLLOW; os.Root confines opens to the watched folder and the
// os.SameFile check after opening rejects a file swapped for a link.
const openFlags = 0
