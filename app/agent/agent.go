// Package agent is the always-on desktop process (`scouts agent`): it owns
// the data directory, runs the core and serves the local API on a Unix
// socket and, when asked, on a loopback TCP port.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/datadir"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localapi"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/app/mcpserve"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Config configures the agent.
type Config struct {
	// DataDir holds the database, the socket, the token and the lock.
	DataDir string
	// Listen, when set, is a loopback TCP address for the local API
	// (127.0.0.1:0 picks a free port).
	Listen string
	// ConfigDir is the user's Scouts configuration folder, which folder
	// scouts never read (like DataDir); default datadir.DefaultConfigDir().
	ConfigDir string
	// DefinitionsDir is the folder of scout definition files the core
	// reconciles (docs/definitions.md); default ConfigDir/scouts.d,
	// created private if missing. Folder scouts never read it.
	DefinitionsDir string
	// Watches is the agent's one file watcher; nil: the core makes its own
	// (core.Config.Watches). Tests give one that meets a limit.
	Watches *watchhub.Hub
	// Inbox is the folder the first run watches; empty disables it.
	Inbox string
	// RelayURL and RelayToken connect the agent to a relay for this run
	// (--relay, --device-token-file); without them it connects to the relay
	// logged in to, its token in the keyring. See core.Config.
	RelayURL   string
	RelayToken string
	// Keyring selects the secrets backend for the relay's device token and
	// Gmail's tokens ("auto", "secret-service", "keychain", "wincred",
	// "file"; empty: Gmail.Keyring, else auto); the file backend's
	// passphrase comes from SCOUTS_KEYRING_PASSPHRASE(_FILE) through Getenv
	// (default os.Getenv).
	Keyring string
	Getenv  func(string) string
	Version string
	// Program is the command the user runs us as, for hints.
	Program string
	Logger  *slog.Logger
	// Out receives the few lines a person starting the agent needs.
	Out io.Writer
	// UI, when set, is the web frontend, served at / on the TCP listener
	// (scouts agent --ui).
	UI fs.FS
	// Ready, when set, is called once the API answers, with the TCP base
	// URL ("" when not listening on TCP).
	Ready func(baseURL string)
	// Autostart, when set, applies the "autostart" setting to the OS (see
	// core.Config.Autostart); the agent applies it at start too.
	Autostart func(enabled bool) error
	// Gmail, when set, lets the user connect Gmail accounts (tokens in
	// the OS keyring) and run Gmail scouts.
	Gmail *GmailConfig
	// Model is the optional LLM: Gmail triage verdicts and, when it is an
	// llm.Client, categorising new items (docs/triage.md).
	Model            triage.Model
	ModelDailyTokens int
	// NewModel, when set and Model is not, builds the model with its API
	// key read from the keyring (the secret secretref.ModelKey) at each
	// call.
	NewModel func(apiKey func(context.Context) (string, error)) (triage.Model, error)
	// PollInterval is how often scouts that cannot be watched (a local
	// Gmail scout) are polled; default 5 minutes.
	PollInterval time.Duration
	// LockStaleAfter is how long a scout's run lock may go unrenewed
	// before a run takes it over (default 2 minutes; tests shorten it).
	LockStaleAfter time.Duration
	// Expiry is how long a suggestion waits for a decision (default 30
	// days).
	Expiry time.Duration
}

// Run runs the agent until ctx ends, then shuts down gracefully.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Program == "" {
		cfg.Program = "scouts"
	}
	log := cfg.Logger
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return fmt.Errorf("agent: data dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("agent: create data dir: %w", err)
	}
	if err := makePrivate(dir, log); err != nil {
		return err
	}
	release, err := lockDataDir(dir)
	if err != nil {
		return err
	}
	defer release()

	var tcp net.Listener
	if cfg.Listen != "" {
		if tcp, err = listenLoopback(cfg.Listen); err != nil {
			return err
		}
		defer tcp.Close()
	}

	if cfg.ConfigDir == "" {
		cfg.ConfigDir = datadir.DefaultConfigDir()
	}
	kr := newKeyring(dir, cfg.ConfigDir, cfg)
	keyring := kr.open
	ccfg := core.Config{DataDir: dir, Version: cfg.Version, Logger: log, PollInterval: cfg.PollInterval,
		RelayURL: cfg.RelayURL, RelayToken: cfg.RelayToken, RelayKeyring: relayKeyring{open: keyring}, Autostart: cfg.Autostart}
	ccfg.SecretStore, ccfg.LockStaleAfter, ccfg.Expiry = keyringSecrets{open: keyring}, cfg.LockStaleAfter, cfg.Expiry
	ccfg.Watches = cfg.Watches
	if cfg.ConfigDir != "" {
		ccfg.ProtectedDirs = []string{cfg.ConfigDir}
	}
	if cfg.DefinitionsDir == "" && cfg.ConfigDir != "" {
		cfg.DefinitionsDir = filepath.Join(cfg.ConfigDir, "scouts.d")
	}
	if cfg.DefinitionsDir != "" {
		defs, err := filepath.Abs(cfg.DefinitionsDir)
		if err != nil {
			return fmt.Errorf("agent: definitions folder: %w", err)
		}
		// Definitions name secrets and say what scouts do: private, like
		// the data directory.
		if err := os.MkdirAll(defs, 0o700); err != nil {
			return fmt.Errorf("agent: create definitions folder: %w", err)
		}
		ccfg.DefinitionsDir = defs
		ccfg.ProtectedDirs = append(ccfg.ProtectedDirs, defs)
	}
	if cfg.Gmail != nil {
		ccfg.Gmail, ccfg.GmailAPIURL = newGmailAccounts(keyring, cfg.Gmail, log), cfg.Gmail.APIURL
	}
	if cfg.Model == nil && cfg.NewModel != nil {
		m, err := cfg.NewModel(modelKey(keyring))
		if err != nil {
			return fmt.Errorf("agent: model: %w", err)
		}
		cfg.Model = m
	}
	if cfg.Model != nil {
		// The budget is counted in the database (core.setupBudget).
		ccfg.Model, ccfg.ModelDailyTokens = cfg.Model, cfg.ModelDailyTokens
	}
	c, err := core.Open(ctx, ccfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if cfg.Autostart != nil {
		// The login entry follows the setting, and the binary if it moved.
		if s, err := c.Settings(ctx); err != nil {
			log.Warn("autostart: cannot read settings", "err", err)
		} else if err := cfg.Autostart(s.Autostart); err != nil {
			log.Warn("autostart: cannot apply the setting", "autostart", s.Autostart, "err", err)
		}
	}
	first, err := c.EnsureFirstRun(ctx, cfg.Inbox)
	if err != nil {
		return fmt.Errorf("agent: first run: %w", err)
	}
	token, err := ensureToken(datadir.TokenPath(dir))
	if err != nil {
		return err
	}

	sockPath := datadir.SocketPath(dir)
	// We hold the lock, so a socket file left here belongs to a dead agent.
	os.Remove(sockPath)
	sock, err := net.Listen("unix", sockPath)
	if err != nil {
		return fmt.Errorf("agent: listen on %s: %w", sockPath, err)
	}
	defer os.Remove(sockPath)
	if err := os.Chmod(sockPath, 0o600); err != nil {
		sock.Close()
		return fmt.Errorf("agent: socket permissions: %w", err)
	}

	if err := c.Start(ctx); err != nil {
		sock.Close()
		return err
	}

	mcpToken, err := ensureToken(datadir.MCPTokenPath(dir))
	if err != nil {
		return err
	}
	// Scouts' MCP server over HTTP (off until the person switches it on)
	// reaches the agent as `scouts mcp serve` does: through the local
	// API's client, over the socket.
	mcpAPI := localclient.NewSocket(sockPath)
	mcpAPI.ClientName = "mcp"
	mcpHandler := mcpserve.Handler(mcpserve.Options{API: mcpAPI, Version: cfg.Version, Logger: log})
	api := localapi.New(c, localapi.Options{Token: token, Logger: log, UI: cfg.UI, Keyring: kr, MCP: mcpHandler, MCPToken: mcpToken})
	// Streams watch their request context; cancelling this base context on
	// shutdown ends them, so Shutdown does not wait for idle streams.
	baseCtx, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	newServer := func(h http.Handler) *http.Server {
		return &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return baseCtx },
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}
	}
	servers := []*http.Server{newServer(api.SocketHandler())}
	listeners := []net.Listener{sock}
	baseURL := ""
	if tcp != nil {
		servers = append(servers, newServer(api.TCPHandler(tcp.Addr())))
		listeners = append(listeners, tcp)
		baseURL = "http://" + tcp.Addr().String()
	}
	errc := make(chan error, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := srv.Serve(listeners[i]); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}

	fmt.Fprintf(cfg.Out, "Scouts agent %s running (data: %s)\n", cfg.Version, dir)
	fmt.Fprintf(cfg.Out, "Socket: %s\n", sockPath)
	if baseURL != "" {
		fmt.Fprintf(cfg.Out, "Local API: %s/api/v1/ (bearer token in %s)\n", baseURL, datadir.TokenPath(dir))
		if cfg.UI != nil {
			fmt.Fprintf(cfg.Out, "Open Scouts: %s/?token=%s\n", baseURL, token)
		}
	}
	if all, err := c.DB.ListScouts(ctx); err == nil {
		var folder string
		for _, s := range all {
			if p := folderPath(s.Config); p != "" {
				mode := "review"
				if !s.Review {
					mode = "auto-create"
				}
				if !s.Enabled {
					mode = "disabled"
				}
				fmt.Fprintf(cfg.Out, "Watching: %s (%s)\n", p, mode)
				if folder == "" && s.Enabled {
					folder = p
				}
			}
		}
		switch {
		case first != nil:
			fmt.Fprintf(cfg.Out, "First run: drop a file into %s, then run: %s suggestions\n", cfg.Inbox, cfg.Program)
		case folder != "":
			fmt.Fprintf(cfg.Out, "Drop a file into %s, then run: %s suggestions\n", folder, cfg.Program)
		default:
			fmt.Fprintf(cfg.Out, "No folder is watched: add one with: %s scouts add-folder PATH\n", cfg.Program)
		}
	}
	log.Info("agent started", "data", dir, "socket", sockPath, "url", baseURL, "version", cfg.Version)
	if cfg.Ready != nil {
		cfg.Ready(baseURL)
	}

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
		log.Error("local API stopped", "err", runErr)
	}
	log.Info("agent stopping")
	cancelBase()
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		srv.Shutdown(shutCtx)
	}
	wg.Wait()
	return runErr
}

func folderPath(cfg []byte) string {
	var fc struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(cfg, &fc) != nil {
		return ""
	}
	return fc.Path
}

// listenLoopback listens on addr, which must be a loopback address: the
// local API is for this machine only.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("agent: --listen %q: want host:port, e.g. 127.0.0.1:0", addr)
	}
	ip := net.ParseIP(host)
	if !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("agent: --listen %q: the local API only listens on loopback (127.0.0.1 or ::1)", addr)
	}
	if strings.EqualFold(host, "localhost") {
		addr = net.JoinHostPort("127.0.0.1", addr[strings.LastIndexByte(addr, ':')+1:])
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("agent: listen on %s: %w", addr, err)
	}
	return l, nil
}
