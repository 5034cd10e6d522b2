package secrets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	jose "github.com/dvsekhvalnov/jose2go"
)

// fileBackend is keyring's FileBackend format: one file per key, named by
// the percent-escaped key, each a compact JWE (PBES2-HS256+A128KW key
// wrapping, A256GCM content encryption) of keyring's Item as JSON. The
// key derivation uses jose2go's fixed 8192 PBKDF2 rounds, weak against a
// guessable passphrase: the passphrase file should hold a long random
// one.
type fileBackend struct {
	dir  string
	pass string
}

// fileItem has keyring.Item's JSON shape, so that keyring's own file
// backend reads what this one writes and the other way round.
type fileItem struct {
	Key                         string
	Data                        []byte
	Label                       string
	Description                 string
	KeychainNotTrustApplication bool
	KeychainNotSynchronizable   bool
}

func openFile(o Options) (backend, error) {
	if o.FileDir == "" {
		return nil, &Error{Kind: ErrUnavailable, Backend: BackendFile, Msg: "the file keyring needs a directory (Options.FileDir is empty)"}
	}
	if o.Passphrase == nil {
		return nil, &Error{Kind: ErrUnavailable, Backend: BackendFile,
			Msg: "the file keyring needs a passphrase: set " + EnvPassphraseFile + " to a file (mode 0600) holding a long random passphrase, or " + EnvPassphrase}
	}
	pass, err := o.Passphrase()
	if err != nil {
		return nil, &Error{Kind: ErrUnavailable, Backend: BackendFile, Msg: "cannot read the file keyring's passphrase", Err: err}
	}
	if pass == "" {
		return nil, &Error{Kind: ErrUnavailable, Backend: BackendFile, Msg: "the file keyring's passphrase is empty: set " + EnvPassphraseFile + " or " + EnvPassphrase}
	}
	if err := os.MkdirAll(o.FileDir, 0o700); err != nil {
		return nil, &Error{Kind: ErrUnavailable, Backend: BackendFile, Msg: "cannot create the file keyring directory " + o.FileDir, Err: err}
	}
	b := &fileBackend{dir: o.FileDir, pass: pass}
	// A wrong passphrase is reported when the agent starts, not at the
	// first token refresh an hour later.
	names, err := b.names()
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		if _, err := b.read(names[0]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (b *fileBackend) name() string { return BackendFile }

func (b *fileBackend) get(key string) ([]byte, error) {
	it, err := b.read(escapeFileName(key))
	if err != nil {
		return nil, err
	}
	if it.Key != key {
		return nil, fmt.Errorf("the file keyring entry %s holds key %q, not %q", filepath.Join(b.dir, escapeFileName(key)), it.Key, key)
	}
	return it.Data, nil
}

func (b *fileBackend) read(fileName string) (fileItem, error) {
	path := filepath.Join(b.dir, fileName)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileItem{}, notFound(BackendFile)
	}
	if err != nil {
		return fileItem{}, &Error{Kind: ErrUnavailable, Backend: BackendFile, Msg: "cannot read the file keyring entry " + path, Err: err}
	}
	payload, _, err := jose.Decode(string(raw), b.pass)
	if err != nil {
		return fileItem{}, &Error{Kind: ErrBadPassphrase, Backend: BackendFile,
			Msg: "cannot decrypt the file keyring entry " + path + ": the passphrase (" + EnvPassphraseFile + " or " + EnvPassphrase + ") is not the one it was written with, or the file is damaged",
			Err: err}
	}
	var it fileItem
	if err := json.Unmarshal([]byte(payload), &it); err != nil {
		return fileItem{}, fmt.Errorf("the file keyring entry %s is damaged: %w", path, err)
	}
	return it, nil
}

func (b *fileBackend) set(key string, value []byte) error {
	payload, err := json.Marshal(fileItem{Key: key, Data: value, Label: key})
	if err != nil {
		return err
	}
	tok, err := jose.Encrypt(string(payload), jose.PBES2_HS256_A128KW, jose.A256GCM, b.pass,
		jose.Headers(map[string]any{"created": time.Now().String()}))
	if err != nil {
		return fmt.Errorf("encrypt: %w", err)
	}
	// Write and rename, so that a crash or a concurrent reader never sees
	// half a token; CreateTemp makes the file 0600.
	f, err := os.CreateTemp(b.dir, ".tmp-*")
	if err != nil {
		return &Error{Kind: ErrUnavailable, Backend: BackendFile, Msg: "cannot write to the file keyring directory " + b.dir, Err: err}
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(tok); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return os.Rename(f.Name(), filepath.Join(b.dir, escapeFileName(key)))
}

func (b *fileBackend) remove(key string) error {
	err := os.Remove(filepath.Join(b.dir, escapeFileName(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return notFound(BackendFile)
	}
	return err
}

func (b *fileBackend) keys() ([]string, error) {
	names, err := b.names()
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(names))
	for _, n := range names {
		keys = append(keys, unescapeFileName(n))
	}
	return keys, nil
}

// names lists the entries' file names, leaving out temporary files.
func (b *fileBackend) names() ([]string, error) {
	ents, err := os.ReadDir(b.dir)
	if err != nil {
		return nil, &Error{Kind: ErrUnavailable, Backend: BackendFile, Msg: "cannot list the file keyring directory " + b.dir, Err: err}
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// escapeFileName percent-escapes everything but a conservative set of
// characters, so that keys such as "gmail:you@example.com" make valid
// file names on Windows too; keyring's decoder reads any %XX escape.
func escapeFileName(key string) string {
	const hex = "0123456789ABCDEF"
	var sb strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		safe := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-_@+=,", c) >= 0 || c == '.' && i > 0
		if safe {
			sb.WriteByte(c)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&15])
	}
	return sb.String()
}

func unescapeFileName(name string) string {
	var sb strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] == '%' && i+2 < len(name) && isHex(name[i+1]) && isHex(name[i+2]) {
			sb.WriteByte(unhex(name[i+1])<<4 | unhex(name[i+2]))
			i += 2
			continue
		}
		sb.WriteByte(name[i])
	}
	return sb.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
