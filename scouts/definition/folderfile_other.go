//go:build !unix

package definition

import "os"

// openFolderFileFlags: elsewhere than Unix a named pipe is not a file of
// the folder, and opening one cannot block.
const openFolderFileFlags = os.O_RDONLY
