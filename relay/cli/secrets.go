package cli

import (
	"fmt"
	"os"
	"runtime"
)

// readSecretFile reads a secret given as a file (SCOUTS_RELAY_*_FILE),
// which must be private: see checkSecretFile.
func readSecretFile(path string) ([]byte, error) {
	if err := checkSecretFile(path); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// checkSecretFile refuses a secret file that its group or other users may
// read or change, as the token keys file is refused (tokenseal.Load): a
// database password or an API key there is as good as published on a
// shared host. Kubernetes and Docker mount secrets 0644/0444 by default;
// give them mode 0400 (defaultMode, or mode in the secret's long syntax).
func checkSecretFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 && runtime.GOOS != "windows" {
		return fmt.Errorf("%s is readable by others (mode %#o): chmod 600 it", path, m)
	}
	return nil
}
