package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
)

// runRelay is `scouts relay login|logout|status`: the running agent keeps
// the device token in the OS keyring and the URL in its settings.
func runRelay(ctx context.Context, args []string, env Env) error {
	if len(args) == 0 {
		return usageErrorf("want: relay login URL TOKEN|-, relay logout or relay status")
	}
	switch args[0] {
	case "login":
		return runRelayLogin(ctx, args[1:], env)
	case "logout":
		return runRelayLogout(ctx, args[1:], env)
	case "status":
		return runRelayStatus(ctx, args[1:], env)
	}
	return usageErrorf("unknown relay command %q: want login, logout or status", args[0])
}

func runRelayLogin(ctx context.Context, args []string, env Env) error {
	f := newFlags("relay login", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("want: relay login URL TOKEN (the token scouts-relay device add printed; - reads it from standard input, keeping it out of your shell history)")
	}
	relayURL, token := pos[0], pos[1]
	if token == "-" {
		if token, err = readToken(env); err != nil {
			return err
		}
	}
	st, err := c.RelayLogin(ctx, relayURL, token)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, st)
	}
	who := ""
	if st.DeviceID != "" {
		who = fmt.Sprintf(" as device %s (%s)", st.DeviceID, st.UserEmail)
	}
	fmt.Fprintf(env.Stdout, "Logged in to %s%s. The device token is in the keyring; the agent connects with it from now on.\n", st.URL, who)
	fmt.Fprintf(env.Stdout, "Relay: %s\n", relayStateText(st))
	if plainRemote(st.URL) {
		fmt.Fprintln(env.Stdout, "Warning: http:// sends the device token unencrypted over the network: use https:// for a relay on another machine.")
	}
	return nil
}

// readToken reads the device token from standard input: its first
// non-empty line.
func readToken(env Env) (string, error) {
	in := env.Stdin
	if in == nil {
		in = os.Stdin
	}
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprint(env.Stderr, "Paste the device token, then press Enter: ")
		}
	}
	sc := bufio.NewScanner(io.LimitReader(in, 64<<10))
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			return t, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("read the device token from standard input: %w", err)
	}
	return "", usageErrorf("no device token on standard input")
}

// plainRemote says whether u is plain http to another machine.
func plainRemote(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" {
		return false
	}
	if strings.EqualFold(p.Hostname(), "localhost") {
		return false
	}
	ip := net.ParseIP(p.Hostname())
	return ip == nil || !ip.IsLoopback()
}

func runRelayLogout(ctx context.Context, args []string, env Env) error {
	f := newFlags("relay logout", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("relay logout takes no arguments")
	}
	out, err := c.RelayLogout(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, out)
	}
	switch {
	case out.URL != "" && out.TokenDeleted:
		fmt.Fprintf(env.Stdout, "Logged out of %s: the device token was deleted from the keyring and the agent disconnected.\n", out.URL)
	case out.URL != "":
		fmt.Fprintf(env.Stdout, "Logged out of %s: the agent disconnected (the keyring held no device token).\n", out.URL)
	case out.TokenDeleted:
		fmt.Fprintln(env.Stdout, "Not logged in to a relay; a leftover device token was deleted from the keyring.")
	default:
		fmt.Fprintln(env.Stdout, "Not logged in to a relay: nothing to forget.")
	}
	return nil
}

func runRelayStatus(ctx context.Context, args []string, env Env) error {
	f := newFlags("relay status", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("relay status takes no arguments")
	}
	st, err := c.Relay(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, st)
	}
	if st.State == "none" {
		fmt.Fprintf(env.Stdout, "Not logged in to a relay. Log in with: %s relay login URL TOKEN (the token scouts-relay device add printed)\n", env.program())
		return nil
	}
	w := table(env.Stdout)
	how := "logged in; the device token is in the keyring"
	if st.Source == "flags" {
		how = "from --relay and --device-token-file"
	}
	fmt.Fprintf(w, "Relay\t%s (%s)\n", st.URL, how)
	fmt.Fprintf(w, "State\t%s, since %s\n", relayStateText(st), ago(st.Since))
	if st.DeviceID != "" {
		fmt.Fprintf(w, "Device\t%s (%s)\n", st.DeviceID, st.UserEmail)
	}
	fmt.Fprintf(w, "Outbox\t%s waiting to reach the relay\n", plural(st.Outbox, "change"))
	return w.Flush()
}

// relayStateText is the state in words, with the reason when it is not
// online.
func relayStateText(st apitype.RelayStatus) string {
	s := st.State
	if st.State != "online" && st.Error != "" {
		s += ": " + st.Error
	}
	return s
}
