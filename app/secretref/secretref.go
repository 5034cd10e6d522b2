// Package secretref keeps secrets by reference: definitions, the
// database, exports, the audit and the log carry a secret's name only
// ({"secret": "crm-webhook-token"}); its value lives in the OS keyring and
// is read when an action needs it. The service checks names and sizes,
// audits every change by name and announces the new list of names.
package secretref

import (
	"context"
	"log/slog"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/scouts"
)

// Store keeps named secrets (a webhook's signing key, the model's
// API key) in the OS keyring. Values never reach the database, a
// definition, an export, a log, the audit or a model: definitions name
// them ({"secret": "crm-webhook-token"}) and ResolveSecret reads them when
// an action runs.
type Store interface {
	// Names lists the names, sorted.
	SecretNames(ctx context.Context) ([]string, error)
	// Secret reads one; ENotFound when there is none by that name.
	Secret(ctx context.Context, name string) ([]byte, error)
	SetSecret(ctx context.Context, name string, value []byte) error
	// Delete removes one; ENotFound when there is none.
	DeleteSecret(ctx context.Context, name string) error
}

// ModelKey names the model's API key among the secrets: the agent
// reads it when --llm-key-file is not given.
const ModelKey = "llm-api-key"

// MaxBytes bounds a secret's value.
const MaxBytes = 16 << 10

// CheckName checks a secret's name as definitions refer to it.
func CheckName(name string) error {
	if !secretNameOK(name) {
		return scouts.Errorf(scouts.EInvalid, "secret name %q: use 1 to 100 letters, digits, dots, dashes or underscores", clipName(name))
	}
	return nil
}

// secretNameOK reports whether name is 1 to 100 of [A-Za-z0-9._-]. A loop,
// not the regular expression ^[A-Za-z0-9._-]{1,100}$: compiling that one
// (its repetition unrolled a hundred times) allocated 90 KB at every
// process start.
func secretNameOK(name string) bool {
	if len(name) < 1 || len(name) > 100 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

func clipName(s string) string {
	if len(s) <= 40 {
		return s
	}
	i := 40
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Audit event types of secrets: names only, never values.
const (
	AuditSecretSet     = "secret.set"
	AuditSecretRemoved = "secret.removed"
)

// EventSecrets is published when a secret is set or removed, with
// SecretsChanged: the names, never a value.
const EventSecrets = "secrets.changed"

// SecretsChanged is the data of EventSecrets.
type SecretsChanged struct {
	Names []string
}

// Auditor records a change on the trail.
type Auditor interface {
	AppendAudit(ctx context.Context, evs ...scouts.AuditEvent) error
}

// Service is the agent's named secrets.
type Service struct {
	store Store // nil: this agent has no keyring
	audit Auditor
	bus   *bus.Bus
	now   func() time.Time
	log   *slog.Logger
}

// New returns the service over store (nil: no keyring, every call says
// so), auditing on audit and announcing on b.
func New(store Store, audit Auditor, b *bus.Bus, now func() time.Time, log *slog.Logger) *Service {
	return &Service{store: store, audit: audit, bus: b, now: now, log: log}
}

func (c *Service) secretStore() (Store, error) {
	if c.store == nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "this agent keeps no secrets: it has no keyring")
	}
	return c.store, nil
}

// Names lists the names of the secrets kept.
func (c *Service) Names(ctx context.Context) ([]string, error) {
	st, err := c.secretStore()
	if err != nil {
		return nil, err
	}
	names, err := st.SecretNames(ctx)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// Set keeps a secret's value in the keyring, replacing any.
func (c *Service) Set(ctx context.Context, name string, value []byte) error {
	if err := CheckName(name); err != nil {
		return err
	}
	switch {
	case len(value) == 0:
		return scouts.Errorf(scouts.EInvalid, "secret %s: the value is empty", name)
	case len(value) > MaxBytes:
		return scouts.Errorf(scouts.EInvalid, "secret %s: the value is larger than %d bytes", name, MaxBytes)
	}
	st, err := c.secretStore()
	if err != nil {
		return err
	}
	if err := st.SetSecret(ctx, name, value); err != nil {
		return err
	}
	c.changed(ctx, AuditSecretSet, "Secret "+name+" set (its value is in the OS keyring)", name)
	return nil
}

// Delete removes a secret from the keyring.
func (c *Service) Delete(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	st, err := c.secretStore()
	if err != nil {
		return err
	}
	if err := st.DeleteSecret(ctx, name); err != nil {
		return err
	}
	c.changed(ctx, AuditSecretRemoved, "Secret "+name+" removed from the OS keyring", name)
	return nil
}

// Resolve reads a secret a definition names, when it is used (an
// action's header, the model's key). The value goes to the request that
// needs it and nowhere else.
func (c *Service) Resolve(ctx context.Context, name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	st, err := c.secretStore()
	if err != nil {
		return "", err
	}
	v, err := st.Secret(ctx, name)
	if err != nil {
		return "", err
	}
	return string(v), nil
}

func (c *Service) changed(ctx context.Context, typ, summary, name string) {
	ev := scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageDecision, Type: typ, Outcome: scouts.OutcomeOK,
		Summary: summary, Refs: map[string]string{"secret": name, "actor": "user"}, At: c.now()}
	if err := c.audit.AppendAudit(ctx, ev); err != nil {
		c.log.Warn("audit a secret change", "secret", name, "err", err)
	}
	names, err := c.Names(ctx)
	if err != nil {
		return
	}
	c.bus.Publish(scouts.Event{Type: EventSecrets, Data: SecretsChanged{Names: names}})
}
