// Package cli is the scouts-relay command: `serve` runs the relay; `user`
// and `device` administer accounts against the same database.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
)

// Env is the outside world of a command.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Version        string
}

const usage = `scouts-relay: the hosted Scouts relay.

Usage:
  scouts-relay serve [--listen ADDR] [--database DSN] [--public-url URL]
  scouts-relay user add EMAIL
  scouts-relay device add EMAIL --name NAME     (prints the device token once, on the last line)
  scouts-relay device list EMAIL
  scouts-relay device revoke ID
  scouts-relay keys new [ID]         print a token key line for --token-keys-file
  scouts-relay version

Every flag can also be set with an environment variable SCOUTS_RELAY_<FLAG>
(e.g. SCOUTS_RELAY_DATABASE), and secrets with SCOUTS_RELAY_<FLAG>_FILE naming
a file that holds the value. --database is a SQLite file path or a
postgres:// URL; the default is relay.db in the relay's state directory:
$STATE_DIRECTORY when systemd runs it, else $XDG_STATE_HOME/scouts-relay
(~/.local/state/scouts-relay). serve creates the database; user and device
work only on one that exists.
`

// Main runs the command and returns its exit code.
func Main(args []string, env Env) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(env.Stdout, usage)
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runCommand(ctx, args, env)
}

// runCommand is Main until ctx ends (serve stops then).
func runCommand(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], env)
	case "user":
		err = user(ctx, args[1:], env)
	case "device":
		err = device(ctx, args[1:], env)
	case "keys":
		err = keys(args[1:], env)
	case "version":
		fmt.Fprintln(env.Stdout, "scouts-relay", env.Version)
	default:
		fmt.Fprintf(env.Stderr, "scouts-relay: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(env.Stderr, "scouts-relay %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// flagSet is a command's flags, with values from the environment filling
// in what the command line does not say.
type flagSet struct {
	*flag.FlagSet
	env Env
}

func newFlags(name string, env Env) *flagSet {
	fs := flag.NewFlagSet("scouts-relay "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return &flagSet{FlagSet: fs, env: env}
}

// parse parses args (flags anywhere) and then applies SCOUTS_RELAY_* and
// SCOUTS_RELAY_*_FILE for flags not given on the command line.
func (f *flagSet) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			return nil, err
		}
		args = f.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var err error
	f.VisitAll(func(fl *flag.Flag) {
		if set[fl.Name] || err != nil {
			return
		}
		key := "SCOUTS_RELAY_" + strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_"))
		if v := f.env.Getenv(key); v != "" {
			err = fl.Value.Set(v)
		} else if file := f.env.Getenv(key + "_FILE"); file != "" {
			b, rerr := readSecretFile(file)
			if rerr != nil {
				err = fmt.Errorf("%s_FILE: %w", key, rerr)
				return
			}
			err = fl.Value.Set(strings.TrimSpace(string(b)))
		}
	})
	return pos, err
}

func serve(ctx context.Context, args []string, env Env) error {
	f := newFlags("serve", env)
	listen := f.String("listen", "127.0.0.1:8080", "address to listen on")
	dbFlag := addDatabaseFlag(f)
	public := f.String("public-url", "", "the relay's public base URL, for webhook URLs (default: http://LISTEN)")
	heartbeat := f.Duration("heartbeat", 10*time.Second, "ping interval; silent devices are dropped after three")
	window := f.Int("window", server.DefaultWindow, "unacknowledged proposals per device")
	grace := f.Duration("shutdown-grace", 10*time.Second, "how long shutdown waits for sessions to close")
	logLevel := f.String("log-level", "info", "debug, info, warn or error")
	readTimeout := f.Duration("read-timeout", 30*time.Second, "longest time to read a request with its body")
	writeTimeout := f.Duration("write-timeout", 30*time.Second, "longest time to handle a request and write its answer")
	idleTimeout := f.Duration("idle-timeout", 60*time.Second, "how long an idle keep-alive connection stays open")
	maxConns := f.Int("max-conns", 0, "open connections before new requests get 503 (0: derived from the open-files limit)")
	perAddr := f.Int("max-conns-per-addr", 100, "open connections per client address (0: no cap)")
	exempt := f.String("conn-cap-exempt", "127.0.0.0/8,::1/128", "comma-separated addresses or CIDRs not capped per address (your reverse proxies)")
	g := gmailFlags(f)
	if _, err := f.parse(args); err != nil {
		return err
	}
	exemptPrefixes, err := parsePrefixes(*exempt)
	if err != nil {
		return fmt.Errorf("--conn-cap-exempt: %w", err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	log := slog.New(slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
	dsn, err := dbFlag.resolve(env.Getenv)
	if err != nil {
		return err
	}
	db, err := openForServe(ctx, dbFlag, dsn, log)
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	pub := *public
	if pub == "" {
		pub = "http://" + l.Addr().String()
	}
	var srv *server.Server
	gsvc, verifier, err := g.build(db, log, instanceID(l.Addr()), func(userID, typ string, data any) { srv.Send(userID, typ, data) })
	if err != nil {
		return err
	}
	svc := service.New(service.Config{DB: db, Logger: log, PublicURL: pub, Gmail: gsvc})
	srv = server.New(server.Config{Service: svc, Logger: log, Heartbeat: *heartbeat, Window: *window,
		PushAuth: verifier, ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *idleTimeout,
		MaxConns: *maxConns, MaxConnsPerAddr: *perAddr, ConnCapExempt: exemptPrefixes})
	if gsvc != nil && g.subscription != "" {
		go func() {
			if err := gsvc.Pull(ctx, g.subscription); err != nil {
				log.Error("gmail pull stopped", "err", err)
			}
		}()
	}
	fmt.Fprintf(env.Stdout, "scouts-relay %s listening on http://%s (database: %s, public URL: %s)\n", env.Version, l.Addr(), db.Dialect(), pub)
	log.Info("relay started", "addr", l.Addr().String(), "dialect", string(db.Dialect()), "public_url", pub, "version", env.Version)
	err = srv.ServeListener(ctx, l, *grace)
	log.Info("relay stopped")
	return err
}

// parsePrefixes reads a comma-separated list of addresses and CIDRs.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if a, err := netip.ParseAddr(item); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR", item)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func user(ctx context.Context, args []string, env Env) error {
	if len(args) == 0 || args[0] != "add" {
		return fmt.Errorf("want: scouts-relay user add EMAIL")
	}
	f := newFlags("user add", env)
	dbFlag := addDatabaseFlag(f)
	pos, err := f.parse(args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("want exactly one EMAIL")
	}
	dsn, err := dbFlag.resolve(env.Getenv)
	if err != nil {
		return err
	}
	db, err := openExisting(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.AddUser(ctx, pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Added user %s (%s)\n", u.Email, u.ID)
	return nil
}

func device(ctx context.Context, args []string, env Env) error {
	if len(args) == 0 {
		return fmt.Errorf("want: scouts-relay device add|list|revoke")
	}
	sub := args[0]
	f := newFlags("device "+sub, env)
	dbFlag := addDatabaseFlag(f)
	name := f.String("name", "", "device name (add)")
	pos, err := f.parse(args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("want exactly one argument")
	}
	if sub != "add" && sub != "list" && sub != "revoke" {
		return fmt.Errorf("unknown subcommand %q (want add, list, revoke)", sub)
	}
	dsn, err := dbFlag.resolve(env.Getenv)
	if err != nil {
		return err
	}
	db, err := openExisting(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	switch sub {
	case "add":
		dev, tok, err := db.AddDevice(ctx, pos[0], *name)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Added device %s (%s) for %s. Its token is shown once, below; on the desktop run:\n  scouts relay login RELAY_URL TOKEN\n"+
			"(or scouts relay login RELAY_URL - and paste the token, which keeps it out of your shell history)\n%s\n", dev.Name, dev.ID, dev.UserEmail, tok)
	case "list":
		devs, err := db.ListDevices(ctx, pos[0])
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tNAME\tCREATED\tLAST SEEN\tACKED\tSTATUS")
		for _, d := range devs {
			status, seen := "active", "never"
			if d.Revoked() {
				status = "revoked " + d.RevokedAt.Format(time.RFC3339)
			}
			if !d.LastSeenAt.IsZero() {
				seen = d.LastSeenAt.Format(time.RFC3339)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", d.ID, d.Name, d.CreatedAt.Format(time.RFC3339), seen, d.AckedSeq, status)
		}
		return w.Flush()
	case "revoke":
		if err := db.RevokeDevice(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Revoked device %s; a running relay cuts it off within seconds.\n", pos[0])
	default:
		return fmt.Errorf("unknown subcommand %q (want add, list, revoke)", sub)
	}
	return nil
}
