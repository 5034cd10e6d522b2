package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/term"
)

// ensureFolder makes sure the folder add-folder is about to watch exists:
// a fresh home has no ~/Documents/Scans. With --create it is made; on a
// terminal the person is asked; otherwise the error names --create.
// What it did is said on out.
func ensureFolder(path string, create bool, env Env, out io.Writer) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("%s is a file, not a folder", path)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if !create {
		in, ok := env.Stdin.(*os.File)
		if env.Stdin == nil {
			in, ok = os.Stdin, true
		}
		if !ok || !term.IsTerminal(int(in.Fd())) {
			return fmt.Errorf("the folder %s does not exist: create it, or run the command again with --create", path)
		}
		fmt.Fprintf(env.Stderr, "The folder %s does not exist. Create it? [y/N] ", path)
		line, _ := bufio.NewReader(in).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			return fmt.Errorf("the folder %s does not exist (not created)", path)
		}
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	fmt.Fprintf(out, "Created %s\n", path)
	return nil
}
