package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/scouts-hq/scouts/app/secretref"
	"github.com/scouts-hq/scouts/app/secrets"
	"github.com/scouts-hq/scouts/scouts"
)

// namedSecretKey is the keyring key of a named secret (beside Gmail's
// "gmail:<email>" and the relay's device token).
func namedSecretKey(name string) string { return "secret:" + name }

// keyringSecrets is the secretref.Store over the OS keyring.
type keyringSecrets struct {
	open func() (*secrets.Store, error)
}

func (k keyringSecrets) store() (*secrets.Store, error) {
	s, err := k.open()
	if err != nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "the keyring cannot be opened: %v", err)
	}
	return s, nil
}

// secretError turns the keyring's errors into the core's codes. The
// keyring's messages name keys, never values.
func secretError(name string, err error) error {
	if errors.Is(err, secrets.ErrNotFound) {
		return scouts.Errorf(scouts.ENotFound, "no secret named %q in the keyring", name)
	}
	return scouts.Errorf(scouts.EUnavailable, "secret %q: %v", name, err)
}

func (k keyringSecrets) SecretNames(context.Context) ([]string, error) {
	s, err := k.store()
	if err != nil {
		return nil, err
	}
	keys, err := s.Keys()
	if err != nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "%v", err)
	}
	names := []string{}
	for _, key := range keys {
		if n, ok := strings.CutPrefix(key, namedSecretKey("")); ok {
			names = append(names, n)
		}
	}
	return names, nil
}

func (k keyringSecrets) Secret(_ context.Context, name string) ([]byte, error) {
	s, err := k.store()
	if err != nil {
		return nil, err
	}
	v, err := s.Get(namedSecretKey(name))
	if err != nil {
		return nil, secretError(name, err)
	}
	return v, nil
}

func (k keyringSecrets) SetSecret(_ context.Context, name string, value []byte) error {
	s, err := k.store()
	if err != nil {
		return err
	}
	if err := s.Set(namedSecretKey(name), value); err != nil {
		return secretError(name, err)
	}
	return nil
}

func (k keyringSecrets) DeleteSecret(_ context.Context, name string) error {
	s, err := k.store()
	if err != nil {
		return err
	}
	if err := s.Delete(namedSecretKey(name)); err != nil {
		return secretError(name, err)
	}
	return nil
}

// modelKey reads the model's API key from the keyring at each call; none
// there means none is sent (a local server needs none).
func modelKey(open func() (*secrets.Store, error)) func(context.Context) (string, error) {
	ks := keyringSecrets{open: open}
	return func(ctx context.Context) (string, error) {
		v, err := ks.Secret(ctx, secretref.ModelKey)
		if scouts.ErrorCode(err) == scouts.ENotFound {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(v)), nil
	}
}
