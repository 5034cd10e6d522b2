package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// consentWait is how long `gmail connect` waits for the sign-in: the
// agent's own limit (gmailauth.DefaultConsentTimeout), after which the
// sign-in page no longer leads anywhere.
const consentWait = 10 * time.Minute

// runGmail is `scouts gmail [accounts] | connect | disconnect EMAIL`.
func runGmail(ctx context.Context, args []string, env Env) error {
	sub := "accounts"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "accounts", "list", "ls":
		return gmailAccounts(ctx, args, env)
	case "connect":
		return gmailConnect(ctx, args, env)
	case "disconnect":
		return gmailDisconnect(ctx, args, env)
	}
	return usageErrorf("unknown subcommand %q (want accounts, connect or disconnect)", sub)
}

func gmailAccounts(ctx context.Context, args []string, env Env) error {
	f := newFlags("gmail accounts", env, true)
	_, c, err := f.start(args)
	if err != nil {
		return err
	}
	list, err := c.GmailAccounts(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(env.Stdout, "No Gmail account connected. Connect one with: %s gmail connect\n", env.program())
		return nil
	}
	w := table(env.Stdout)
	fmt.Fprintln(w, "ACCOUNT\tCONNECTED")
	for _, a := range list {
		fmt.Fprintf(w, "%s\t%s ago\n", a.Email, ago(a.ConnectedAt))
	}
	return w.Flush()
}

// gmailConnect does what the tray's "Connect Gmail…" does: the agent
// sends the browser to Google's consent page and, once the user consents,
// keeps the token and gives the account a Gmail scout unless it has one.
// The link is printed too, for a machine where no browser opens.
func gmailConnect(ctx context.Context, args []string, env Env) error {
	f := newFlags("gmail connect", env, true)
	noWait := f.Bool("no-wait", false, "print the sign-in link and return, without waiting for the sign-in")
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("gmail connect takes no arguments (the account is the one you sign in with)")
	}
	// The stream is open before the agent starts the sign-in, so that the
	// account's arrival cannot be missed.
	wctx, cancel := context.WithTimeout(ctx, consentWait)
	defer cancel()
	var watch *localclient.Watcher
	if !*noWait {
		if watch, err = c.Watch(wctx, 0); err != nil {
			return err
		}
		defer watch.Close()
	}
	in, err := c.ConnectGmail(ctx, apitype.GmailConnectRequest{AddScout: true})
	if err != nil {
		return err
	}
	if f.json && *noWait {
		return printJSON(env.Stdout, in)
	}
	if !f.json {
		fmt.Fprintf(env.Stdout, "The agent asked the browser to open Google's sign-in. If none opened, open this link:\n\n  %s\n\n", in.AuthURL)
		if port := redirectPort(in.AuthURL); port != "" {
			fmt.Fprintf(env.Stdout, "Google then returns to 127.0.0.1:%s on the agent's machine: from a browser on another machine, forward that port first (ssh -L %s:127.0.0.1:%s HOST).\n", port, port, port)
		}
	}
	if *noWait {
		fmt.Fprintf(env.Stdout, "The account appears in %s gmail accounts once you have signed in.\n", env.program())
		return nil
	}
	if !f.json {
		fmt.Fprintln(env.Stdout, "Waiting for the sign-in (Ctrl-C stops waiting; the link works for 10 minutes)…")
	}
	for {
		ev, err := watch.Next()
		if err != nil {
			if errors.Is(wctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("no account was connected within %s: the sign-in was not finished or was refused (the agent's log says which); run %s gmail connect again", consentWait, env.program())
			}
			if ctx.Err() != nil {
				return fmt.Errorf("stopped waiting; the sign-in goes on in the browser, and the account appears in %s gmail accounts once it is done", env.program())
			}
			return fmt.Errorf("the agent's event stream ended before the sign-in: %w", err)
		}
		if ev.Type != "gmail.connected" {
			continue
		}
		var g apitype.GmailConnected
		if err := json.Unmarshal(ev.Data, &g); err != nil {
			return fmt.Errorf("gmail.connected: %w", err)
		}
		if f.json {
			return printJSON(env.Stdout, g)
		}
		fmt.Fprintln(env.Stdout, connectedText(g, env))
		return nil
	}
}

// connectedText says what connecting did, as the tray's notification does.
func connectedText(g apitype.GmailConnected, env Env) string {
	switch {
	case g.Added:
		return fmt.Sprintf("Connected %s. Added Gmail scout %s (%s, %s mode): new mail becomes suggestions for you to review (%s suggestions).",
			g.Email, g.ScoutID, g.ScoutName, g.Mode, env.program())
	case g.AddError != "":
		return fmt.Sprintf("Connected %s, but no scout was added: %s", g.Email, g.AddError)
	case g.ScoutID != "":
		return fmt.Sprintf("Reconnected %s: its scout %s (%s) runs again.", g.Email, g.ScoutID, g.ScoutName)
	}
	return fmt.Sprintf("Connected %s.", g.Email)
}

// redirectPort is the port of the sign-in's return address on the
// agent's machine ("" when the link names none).
func redirectPort(authURL string) string {
	u, err := url.Parse(authURL)
	if err != nil {
		return ""
	}
	r, err := url.Parse(u.Query().Get("redirect_uri"))
	if err != nil || r.Hostname() != "127.0.0.1" {
		return ""
	}
	return r.Port()
}

func gmailDisconnect(ctx context.Context, args []string, env Env) error {
	f := newFlags("gmail disconnect", env, false)
	email, c, err := f.oneArg(args, "account (EMAIL)")
	if err != nil {
		return err
	}
	if err := c.DisconnectGmail(ctx, email); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Disconnected %s: its access was revoked and its token deleted; its scouts stop until it is connected again.\n", email)
	return nil
}
