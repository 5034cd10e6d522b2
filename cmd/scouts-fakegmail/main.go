// Command scouts-fakegmail serves the fake Gmail API (fakegoogle/gmailfake)
// as a process, for end-to-end tests and local runs of Scouts. Its first
// line on stdout is "listening on http://ADDR"; the Gmail API is under
// /gmail/v1/ (tokens "fake-token-for:<email>"), and an unauthenticated
// admin API for tests under /_fake/ (see admin.go). It listens on loopback
// by default and must not be exposed: anyone who reaches it can read and
// change every mailbox.
//
// With --oauth it also serves the fake Google OAuth endpoints
// (fakegoogle/oauthfake) under /oauth, printed on a second line "oauth at
// URL"; the first mailbox is the account that consents, and the Gmail API
// then accepts only the access tokens those endpoints issued, as Google
// does. An agent started with --google-auth-url URL/o/oauth2/v2/auth,
// --google-token-url URL/token, --google-revoke-url URL/revoke and the
// fake's client id and secret connects the account as it would Google's:
// a browser spec drives a real agent's Gmail scout this way.
//
//	scouts-fakegmail --mailbox ann@example.com --corpus --limit 200 \
//	    --pubsub-emulator localhost:8085
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scouts-fakegmail:", err)
		os.Exit(1)
	}
}

type config struct {
	listen     string
	mailboxes  []string
	corpus     bool
	limit      int
	spamToSpam bool
	emulator   string
	oauth      bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("scouts-fakegmail", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:0", "address to listen on")
	fs.Func("mailbox", "mailbox address to serve (repeatable; default user@example.com)", func(v string) error {
		if v == "" {
			return errors.New("empty mailbox address")
		}
		c.mailboxes = append(c.mailboxes, v)
		return nil
	})
	fs.BoolVar(&c.corpus, "corpus", false, "deliver the SpamAssassin development groups into the first mailbox")
	fs.IntVar(&c.limit, "limit", 0, "with --corpus, deliver at most this many messages (0: all)")
	fs.BoolVar(&c.spamToSpam, "spam-to-spam", false, "with --corpus, label spam SPAM instead of delivering it to INBOX")
	fs.BoolVar(&c.oauth, "oauth", false, "also serve fake Google OAuth endpoints under /oauth, for the first mailbox's account; the Gmail API then accepts only their tokens")
	fs.StringVar(&c.emulator, "pubsub-emulator", os.Getenv("PUBSUB_EMULATOR_HOST"), "Pub/Sub emulator host:port to publish watch notifications to (default $PUBSUB_EMULATOR_HOST)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if len(c.mailboxes) == 0 {
		c.mailboxes = []string{"user@example.com"}
	}
	return c, nil
}

// run serves until ctx ends, then shuts down gracefully.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "scouts-fakegmail: ", log.LstdFlags)
	o := gmailfake.Options{Logf: logger.Printf}
	if c.emulator != "" {
		o.Publish = gmailfake.EmulatorPublisher(c.emulator, &http.Client{Timeout: 10 * time.Second})
	}
	var oauth *oauthfake.Server
	if c.oauth {
		oauth = oauthfake.New(oauthfake.Options{Account: c.mailboxes[0]})
		o.Authorize = oauth.AccessTokenEmail
	}
	srv := gmailfake.New(o)
	for _, m := range c.mailboxes {
		srv.AddMailbox(m)
	}
	if c.corpus {
		if err := loadCorpus(ctx, srv, c, logger); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.listen, err)
	}
	// Tests read this line to find the port; it must come first.
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

	mux := http.NewServeMux()
	mux.Handle("/_fake/", adminHandler(srv))
	if oauth != nil {
		fmt.Fprintf(stdout, "oauth at http://%s/oauth\n", ln.Addr())
		mux.Handle("/oauth/", http.StripPrefix("/oauth", oauth))
	}
	mux.Handle("/", srv)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

func loadCorpus(ctx context.Context, srv *gmailfake.Server, c config, logger *log.Logger) error {
	root, err := corpus.DefaultRoot()
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	cp, err := corpus.Locate(ctx, root)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	n, err := gmailfake.LoadCorpus(srv, c.mailboxes[0], cp, gmailfake.CorpusOptions{Limit: c.limit, SpamToSpam: c.spamToSpam})
	if err != nil {
		return err
	}
	logger.Printf("delivered %d corpus messages to %s", n, c.mailboxes[0])
	return nil
}
