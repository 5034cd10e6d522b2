//go:build darwin || windows

package secrets

import (
	"errors"
	"runtime"
	"slices"

	"github.com/99designs/keyring"
)

// openPlatform opens the Keychain or the Credential Manager through
// 99designs/keyring, whose macOS and Windows inits have no side effects.
func openPlatform(o Options) (backend, error) {
	native := keyring.BackendType(BackendKeychain)
	if runtime.GOOS == "windows" {
		native = keyring.BackendType(BackendWinCred)
	}
	want := native
	switch o.Backend {
	case BackendAuto:
	case string(native):
	default:
		return nil, &Error{Kind: ErrUnavailable, Backend: o.Backend,
			Msg: "the " + o.Backend + " keyring is not available on " + runtime.GOOS + ": use --keyring " + string(native) + " or --keyring file"}
	}
	if !slices.Contains(keyring.AvailableBackends(), want) {
		// The Keychain needs cgo: a CGO_ENABLED=0 macOS build has none.
		err := &Error{Kind: ErrUnavailable, Backend: string(want),
			Msg: "this build of Scouts has no " + string(want) + " support " + fileHint}
		if o.Backend == BackendAuto && o.Passphrase != nil {
			return openFile(o)
		}
		return nil, err
	}
	kr, err := keyring.Open(keyring.Config{
		AllowedBackends: []keyring.BackendType{want},
		ServiceName:     o.ServiceName,
		// Trusting the application spares the user a Keychain dialog on
		// each read by the same binary.
		KeychainTrustApplication: true,
		KeychainSynchronizable:   false,
		WinCredPrefix:            "Scouts",
	})
	if err != nil {
		return nil, &Error{Kind: ErrUnavailable, Backend: string(want), Msg: "cannot open the " + string(want) + " keyring " + fileHint, Err: err}
	}
	return &nativeKeyring{kr: kr, backend: string(want)}, nil
}

type nativeKeyring struct {
	kr      keyring.Keyring
	backend string
}

func (n *nativeKeyring) name() string { return n.backend }

func (n *nativeKeyring) get(key string) ([]byte, error) {
	it, err := n.kr.Get(key)
	if err != nil {
		return nil, n.wrap(err)
	}
	return it.Data, nil
}

func (n *nativeKeyring) set(key string, value []byte) error {
	return n.wrap(n.kr.Set(keyring.Item{Key: key, Data: value, Label: "Scouts: " + key}))
}

func (n *nativeKeyring) remove(key string) error {
	return n.wrap(n.kr.Remove(key))
}

func (n *nativeKeyring) keys() ([]string, error) {
	k, err := n.kr.Keys()
	return k, n.wrap(err)
}

func (n *nativeKeyring) wrap(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, keyring.ErrKeyNotFound) {
		return notFound(n.backend)
	}
	// The Keychain answers a locked or denied keychain with an error
	// from Security.framework; there is nothing finer to map it to.
	return &Error{Kind: ErrUnavailable, Backend: n.backend, Msg: "the " + n.backend + " keyring failed", Err: err}
}
