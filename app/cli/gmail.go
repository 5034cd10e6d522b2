package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/gmailauth"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
)

// gmailOptions are the agent's Gmail flags. Every Google endpoint is a
// flag so the agent runs against fakes or behind a proxy.
type gmailOptions struct {
	clientID, secretFile         string
	authURL, tokenURL, revokeURL string
	apiURL, keyring              string
	llmURL, llmModel, llmKeyFile string
	llmDailyTokens               int
	openBrowser                  bool
	poll, lockStale, expiry      time.Duration
}

func gmailFlags(f *flags) *gmailOptions {
	o := &gmailOptions{}
	f.StringVar(&o.clientID, "google-client-id", "", "your Google Cloud OAuth client id (Desktop app), to connect Gmail; see docs/gmail.md")
	f.StringVar(&o.secretFile, "google-client-secret-file", "", "file holding that client's secret (or set SCOUTS_GOOGLE_CLIENT_SECRET)")
	f.StringVar(&o.authURL, "google-auth-url", gmailauth.GoogleAuthURL, "Google's OAuth consent endpoint")
	f.StringVar(&o.tokenURL, "google-token-url", gmailauth.GoogleTokenURL, "Google's OAuth token endpoint")
	f.StringVar(&o.revokeURL, "google-revoke-url", gmailauth.GoogleRevokeURL, "Google's OAuth revocation endpoint")
	f.StringVar(&o.apiURL, "gmail-api-url", "https://gmail.googleapis.com/", "Gmail API root")
	f.StringVar(&o.keyring, "keyring", "auto", "where tokens (Gmail's, the relay's device token) live: auto, secret-service, keychain, wincred or file (passphrase from SCOUTS_KEYRING_PASSPHRASE or SCOUTS_KEYRING_PASSPHRASE_FILE)")
	f.StringVar(&o.llmURL, "llm-url", "", "OpenAI-compatible API root for the optional model: Gmail triage verdicts and categorising new items (docs/triage.md)")
	f.StringVar(&o.llmModel, "llm-model", "", "model name")
	f.StringVar(&o.llmKeyFile, "llm-key-file", "", "file holding the model API key (default: the secret llm-api-key in the OS keyring, see scouts secrets set)")
	f.IntVar(&o.llmDailyTokens, "llm-daily-tokens", 200_000, "hard daily token cap per scout: no scout's budget can exceed it")
	f.BoolVar(&o.openBrowser, "open-browser", true, "open the system browser for Gmail consent (false: only return the link, for headless machines)")
	f.DurationVar(&o.poll, "poll-interval", 5*time.Minute, "how often scouts without push or a schedule of their own (local-mode Gmail) are polled")
	f.DurationVar(&o.lockStale, "lock-stale-after", 2*time.Minute, "a scout's run lock not renewed for this long is taken over (its holder is taken for dead)")
	f.DurationVar(&o.expiry, "expire-after", 30*24*time.Hour, "how long a suggestion waits for a decision before it expires (expired ones stay listed, and can be brought back)")
	return o
}

func (o *gmailOptions) apply(cfg *agent.Config, env Env) error {
	if o.poll < time.Second {
		return usageErrorf("--poll-interval must be at least 1s")
	}
	cfg.PollInterval = o.poll
	if o.lockStale < time.Second {
		return usageErrorf("--lock-stale-after must be at least 1s")
	}
	cfg.LockStaleAfter = o.lockStale
	if o.expiry < time.Second {
		return usageErrorf("--expire-after must be at least 1s")
	}
	cfg.Expiry = o.expiry
	cfg.Keyring, cfg.Getenv = o.keyring, os.Getenv
	if o.llmURL != "" {
		mc := llm.Config{BaseURL: o.llmURL, Model: o.llmModel}
		if o.llmKeyFile != "" {
			k, err := llm.ReadKeyFile(o.llmKeyFile)
			if err != nil {
				return err
			}
			mc.APIKey = k
		}
		m, err := llm.New(mc)
		if err != nil {
			return usageErrorf("--llm-url: %v", err)
		}
		cfg.Model, cfg.ModelDailyTokens = m, o.llmDailyTokens
		if o.llmKeyFile == "" {
			// The key is the secret llm-api-key in the keyring (scouts
			// secrets set llm-api-key), read at each call.
			cfg.Model = nil
			cfg.NewModel = func(key func(context.Context) (string, error)) (triage.Model, error) {
				mc.APIKeyFunc = key
				return llm.New(mc)
			}
		}
	}
	if o.clientID == "" {
		return nil
	}
	secret := os.Getenv("SCOUTS_GOOGLE_CLIENT_SECRET")
	if o.secretFile != "" {
		b, err := os.ReadFile(o.secretFile)
		if err != nil {
			return fmt.Errorf("--google-client-secret-file: %w", err)
		}
		secret = strings.TrimSpace(string(b))
	}
	cfg.Gmail = &agent.GmailConfig{ClientID: o.clientID, ClientSecret: secret, AuthURL: o.authURL, TokenURL: o.tokenURL,
		RevokeURL: o.revokeURL, APIURL: o.apiURL, Keyring: o.keyring, Getenv: os.Getenv}
	if !o.openBrowser {
		cfg.Gmail.OpenBrowser = func(string) error { return nil }
	}
	return nil
}
