package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/pushauth"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/tokenseal"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
)

// gmailOptions are serve's Gmail flags. Every Google endpoint is a flag so
// the relay runs against fakes or behind a proxy.
type gmailOptions struct {
	enabled                      bool
	clientID, clientSecret       string
	tokenURL, gmailURL           string
	topic, subscription          string
	keysFile                     string
	audience, serviceAccount     string
	issuer, jwksURL, pushSecret  string
	poll, renewCheck             time.Duration
	inactivityDays               int
	llmURL, llmModel, llmKeyFile string
	llmDailyTokens               int
}

func gmailFlags(f *flagSet) *gmailOptions {
	o := &gmailOptions{}
	f.BoolVar(&o.enabled, "gmail", false, "run Gmail scouts (relay-ping, and relay-triage with --token-keys-file and an OAuth client)")
	f.StringVar(&o.clientID, "google-client-id", "", "OAuth client id the desktops connect Gmail with (relay-triage)")
	f.StringVar(&o.clientSecret, "google-client-secret", "", "that client's secret (prefer SCOUTS_RELAY_GOOGLE_CLIENT_SECRET_FILE)")
	f.StringVar(&o.tokenURL, "google-token-url", "https://oauth2.googleapis.com/token", "Google's OAuth token endpoint")
	f.StringVar(&o.gmailURL, "gmail-api-url", "https://gmail.googleapis.com/", "Gmail API root")
	f.StringVar(&o.topic, "gmail-topic", "", "Pub/Sub topic watches publish to (projects/P/topics/T); empty: poll only")
	f.StringVar(&o.subscription, "gmail-pull-subscription", "", "pull notifications from this subscription (projects/P/subscriptions/S) instead of receiving pushes; honours PUBSUB_EMULATOR_HOST")
	f.StringVar(&o.keysFile, "token-keys-file", "", "file of AES-256 keys (ID:BASE64 per line, first seals) for refresh tokens; see `scouts-relay keys new`")
	f.StringVar(&o.audience, "push-audience", "", "audience of Pub/Sub's OIDC push tokens (usually the push endpoint URL)")
	f.StringVar(&o.serviceAccount, "push-service-account", "", "service account email the push subscription signs as")
	f.StringVar(&o.issuer, "push-oidc-issuer", pushauth.DefaultIssuer, "issuer of push tokens")
	f.StringVar(&o.jwksURL, "push-jwks-url", pushauth.DefaultJWKSURL, "keys that sign push tokens")
	f.StringVar(&o.pushSecret, "push-secret", "", "self-hosting: accept pushes whose URL has ?token=SECRET (the Pub/Sub emulator sends no OIDC token)")
	f.DurationVar(&o.poll, "gmail-poll", 10*time.Minute, "fallback poll of every relay-triage scout, for lost notifications")
	f.DurationVar(&o.renewCheck, "gmail-renew-check", time.Hour, "how often watches expiring within 24 h are looked for")
	f.IntVar(&o.inactivityDays, "inactivity-pause-days", 14, "pause a scout after its user's desktops have been away this many days")
	f.StringVar(&o.llmURL, "llm-url", "", "OpenAI-compatible API root for the optional model step")
	f.StringVar(&o.llmModel, "llm-model", "", "model name")
	f.StringVar(&o.llmKeyFile, "llm-key-file", "", "file holding the model API key")
	f.IntVar(&o.llmDailyTokens, "llm-daily-tokens", 200_000, "hard daily token cap per scout, counted in the database (shared by every instance)")
	return o
}

func (o *gmailOptions) build(db *relaydb.DB, log *slog.Logger, instance string, send func(userID, typ string, data any)) (*gmailscout.Service, *pushauth.Verifier, error) {
	if !o.enabled {
		return nil, nil, nil
	}
	var keys *tokenseal.Keys
	if o.keysFile != "" {
		k, err := tokenseal.Load(o.keysFile)
		if err != nil {
			return nil, nil, err
		}
		keys = k
	}
	if keys != nil && o.clientID == "" {
		return nil, nil, errors.New("--token-keys-file without --google-client-id: relay-triage needs the OAuth client the desktops use")
	}
	cfg := gmailscout.Config{DB: db, Keys: keys, ClientID: o.clientID, ClientSecret: o.clientSecret, TokenURL: o.tokenURL,
		GmailURL: o.gmailURL, Topic: o.topic, PollEvery: o.poll, RenewCheck: o.renewCheck,
		InactivityPauseDays: o.inactivityDays, Send: send, Logger: log, InstanceID: instance}
	if o.llmURL != "" {
		key := ""
		if o.llmKeyFile != "" {
			if err := checkSecretFile(o.llmKeyFile); err != nil {
				return nil, nil, fmt.Errorf("--llm-key-file: %w", err)
			}
			k, err := llm.ReadKeyFile(o.llmKeyFile)
			if err != nil {
				return nil, nil, err
			}
			key = k
		}
		m, err := llm.New(llm.Config{BaseURL: o.llmURL, Model: o.llmModel, APIKey: key})
		if err != nil {
			return nil, nil, fmt.Errorf("--llm-url: %w", err)
		}
		// Counted in the database: shared by every instance on it, and kept
		// across restarts.
		cfg.Model, cfg.Budget, cfg.DailyTokens = m, triage.LedgerBudget{Ledger: db}, o.llmDailyTokens
	}
	var verifier *pushauth.Verifier
	if o.subscription == "" {
		v, err := pushauth.New(pushauth.Config{Audience: o.audience, ServiceAccount: o.serviceAccount, Issuer: o.issuer,
			JWKSURL: o.jwksURL, Secret: o.pushSecret})
		if err != nil {
			return nil, nil, fmt.Errorf("--gmail: %w (or use --gmail-pull-subscription)", err)
		}
		verifier = v
	}
	log.Info("gmail scouts enabled", "relay_triage", keys != nil, "topic", o.topic, "pull", o.subscription != "",
		"oidc_push", o.audience != "", "secret_push", o.pushSecret != "", "model", o.llmModel)
	return gmailscout.New(cfg), verifier, nil
}

// instanceID names this relay process as a holder of Gmail scouts' sync
// leases: its host and the address it listens on. No two live processes
// share both, and a relay restarted where it was finds the leases it held
// when it died its own again at once, instead of waiting for them to
// expire.
func instanceID(addr net.Addr) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return host + "/" + addr.String()
}

// keys: `scouts-relay keys new [ID]` prints a fresh token key line for the
// --token-keys-file. Put a new key first to rotate: it seals from then on,
// the old ones keep opening what they sealed.
func keys(args []string, env Env) error {
	if len(args) == 0 || args[0] != "new" || len(args) > 2 {
		return errors.New("usage: scouts-relay keys new [ID]   (prints ID:BASE64 for --token-keys-file)")
	}
	id := time.Now().UTC().Format("20060102")
	if len(args) == 2 {
		id = args[1]
	}
	fmt.Fprintln(env.Stdout, tokenseal.NewKeyLine(id))
	return nil
}
