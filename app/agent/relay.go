package agent

import (
	"context"
	"errors"

	"github.com/scouts-hq/scouts/app/secrets"
	"github.com/scouts-hq/scouts/scouts"
)

// relayTokenKey names the relay's device token in the keyring (beside
// Gmail's "gmail:<email>").
const relayTokenKey = "relay:device-token"

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// relayKeyring keeps the relay's device token in the keyring for the
// core, turning the keyring's errors into the core's codes; their
// messages already say what to do.
type relayKeyring struct {
	open func() (*secrets.Store, error)
}

func (k relayKeyring) store() (*secrets.Store, error) {
	s, err := k.open()
	if err != nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "%v", err)
	}
	return s, nil
}

func keyringError(err error) error {
	if errors.Is(err, secrets.ErrNotFound) {
		return scouts.Errorf(scouts.ENotFound, "no relay device token in the keyring")
	}
	return scouts.Errorf(scouts.EUnavailable, "%v", err)
}

func (k relayKeyring) RelayToken(context.Context) (string, error) {
	s, err := k.store()
	if err != nil {
		return "", err
	}
	b, err := s.Get(relayTokenKey)
	if err != nil {
		return "", keyringError(err)
	}
	return string(b), nil
}

func (k relayKeyring) SetRelayToken(_ context.Context, token string) error {
	s, err := k.store()
	if err != nil {
		return err
	}
	if err := s.Set(relayTokenKey, []byte(token)); err != nil {
		return keyringError(err)
	}
	return nil
}

func (k relayKeyring) DeleteRelayToken(context.Context) error {
	s, err := k.store()
	if err != nil {
		return err
	}
	if err := s.Delete(relayTokenKey); err != nil {
		return keyringError(err)
	}
	return nil
}
