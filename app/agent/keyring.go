package agent

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/secrets"
	"github.com/scouts-hq/scouts/scouts"
)

// PassphraseFileName is the file keyring's passphrase in the
// configuration folder, written by `scouts keyring use-file`. It is not
// in the data folder, so that a copy of the data (the database, the
// keyring's encrypted files) does not carry the key to its tokens.
const PassphraseFileName = "keyring-passphrase"

// keyring is where the agent keeps its tokens: the relay's device token,
// Gmail's, named secrets. It is opened on first use (an agent that never
// needs a secret never touches the keyring, nor its unlock prompt), and a
// failure is not kept: the next use tries again, so that a keyring
// unlocked later, or the file keyring chosen with `scouts keyring
// use-file`, serves the running agent without a restart.
type keyring struct {
	backend  string // configured: auto, secret-service, …, file
	getenv   func(string) string
	fileDir  string // the file keyring's entries: DATA/keyring
	passFile string // CONFIG/keyring-passphrase; "" without a config folder
	bus      string // the session bus for the Secret Service; "" finds it

	mu    sync.Mutex
	store *secrets.Store
	// useFile: `scouts keyring use-file` chose the file keyring in this
	// run (with a passphrase from the environment, no file says so).
	useFile bool
}

func newKeyring(dataDir, configDir string, cfg Config) *keyring {
	backend, getenv := cfg.Keyring, cfg.Getenv
	if cfg.Gmail != nil {
		backend = cmpOr(backend, cfg.Gmail.Keyring)
		if getenv == nil {
			getenv = cfg.Gmail.Getenv
		}
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	k := &keyring{backend: cmpOr(backend, secrets.BackendAuto), getenv: getenv, fileDir: filepath.Join(dataDir, "keyring")}
	if configDir != "" {
		k.passFile = filepath.Join(configDir, PassphraseFileName)
	}
	return k
}

// open returns the keyring, opening it if no earlier call succeeded.
func (k *keyring) open() (*secrets.Store, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.store != nil {
		return k.store, nil
	}
	s, err := k.openLocked()
	if err != nil {
		return nil, err
	}
	k.store = s
	return s, nil
}

func (k *keyring) openLocked() (*secrets.Store, error) {
	backend, pass := k.backend, secrets.PassphraseFromEnv(k.getenv)
	fileChosen, err := k.passFileExists()
	if err != nil {
		return nil, err
	}
	if pass == nil && fileChosen {
		pass = k.readPassFile
	}
	// The passphrase file is there because someone chose the file
	// keyring (scouts keyring use-file); "auto" honours that choice, an
	// explicit --keyring stays what it says.
	if k.useFile || (backend == secrets.BackendAuto && fileChosen) {
		backend = secrets.BackendFile
	}
	return secrets.Open(secrets.Options{Backend: backend, FileDir: k.fileDir, Passphrase: pass, ServiceName: "scouts", BusAddress: k.bus})
}

func (k *keyring) passFileExists() (bool, error) {
	if k.passFile == "" {
		return false, nil
	}
	fi, err := os.Stat(k.passFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("keyring passphrase file: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return false, &secrets.Error{Kind: secrets.ErrUnavailable, Backend: secrets.BackendFile,
			Msg: fmt.Sprintf("the keyring passphrase file %s is readable by other users (mode %v); run: chmod 600 %s", k.passFile, fi.Mode().Perm(), k.passFile)}
	}
	return true, nil
}

func (k *keyring) readPassFile() (string, error) {
	b, err := os.ReadFile(k.passFile)
	if err != nil {
		return "", fmt.Errorf("read the keyring passphrase: %w", err)
	}
	p := strings.TrimRight(string(b), "\r\n")
	if p == "" {
		return "", fmt.Errorf("the keyring passphrase file %s is empty", k.passFile)
	}
	return p, nil
}

// KeyringStatus says which keyring holds the tokens, or why none can.
func (k *keyring) KeyringStatus() apitype.Keyring {
	s, err := k.open()
	if err != nil {
		return apitype.Keyring{Error: err.Error()}
	}
	out := apitype.Keyring{Backend: s.Backend()}
	if s.Backend() == secrets.BackendFile && secrets.PassphraseFromEnv(k.getenv) == nil {
		out.PassphraseFile = k.passFile
	}
	return out
}

// UseFileKeyring makes the running agent keep its tokens in the encrypted
// file keyring (DATA/keyring), for a machine without a desktop keyring: its
// passphrase is the environment's (SCOUTS_KEYRING_PASSPHRASE(_FILE)) when
// set, else a random one written to CONFIG/keyring-passphrase (mode 0600),
// created once and kept. Tokens already in another keyring stay there (log
// in again to store them here).
func (k *keyring) UseFileKeyring() (apitype.Keyring, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	created := false
	if secrets.PassphraseFromEnv(k.getenv) == nil {
		if k.passFile == "" {
			return apitype.Keyring{}, scouts.Errorf(scouts.EUnavailable, "this machine has no configuration folder for the keyring's passphrase: set %s instead", secrets.EnvPassphraseFile)
		}
		var err error
		if created, err = writePassphrase(k.passFile); err != nil {
			return apitype.Keyring{}, scouts.Errorf(scouts.EUnavailable, "%v", err)
		}
	}
	prev, prevUse := k.store, k.useFile
	k.store, k.useFile = nil, true
	s, err := k.openLocked()
	if err != nil {
		k.store, k.useFile = prev, prevUse
		return apitype.Keyring{}, scouts.Errorf(scouts.EUnavailable, "%v", err)
	}
	k.store = s
	out := apitype.Keyring{Backend: s.Backend(), Created: created}
	if secrets.PassphraseFromEnv(k.getenv) == nil {
		out.PassphraseFile = k.passFile
	}
	return out, nil
}

// writePassphrase writes a random passphrase to path unless the file
// exists; it reports whether it wrote one.
func writePassphrase(path string) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("keyring passphrase: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("keyring passphrase: %w", err)
	}
	b := make([]byte, 32)
	rand.Read(b)
	_, werr := f.WriteString(base64.RawURLEncoding.EncodeToString(b) + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return false, fmt.Errorf("keyring passphrase: %w", werr)
	}
	return true, nil
}
