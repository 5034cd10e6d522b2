package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/localclient"
)

// runKeyring is `scouts keyring [use-file]`: where the running agent keeps
// its tokens, and the switch to its encrypted file keyring on a machine
// without a desktop keyring (no restart: the agent opens it at the next
// use).
func runKeyring(ctx context.Context, args []string, env Env) error {
	sub := "status"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	f := newFlags("keyring "+sub, env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("keyring %s takes no arguments", sub)
	}
	switch sub {
	case "status":
		k, err := c.Keyring(ctx)
		if err != nil {
			return err
		}
		if f.json {
			return printJSON(env.Stdout, k)
		}
		if k.Backend == "" {
			fmt.Fprintf(env.Stdout, "No keyring can keep tokens: %s\n", k.Error)
			fmt.Fprintf(env.Stdout, "On a machine without a desktop keyring, run: %s keyring use-file\n", env.program())
			return nil
		}
		fmt.Fprintf(env.Stdout, "Tokens are kept in the %s keyring", k.Backend)
		if k.PassphraseFile != "" {
			fmt.Fprintf(env.Stdout, " (encrypted; its passphrase is in %s)", k.PassphraseFile)
		}
		fmt.Fprintln(env.Stdout, ".")
		return nil
	case "use-file":
		k, err := c.UseFileKeyring(ctx)
		if err != nil {
			return err
		}
		if f.json {
			return printJSON(env.Stdout, k)
		}
		fmt.Fprintln(env.Stdout, "The agent keeps its tokens in its encrypted file keyring from now on (no restart needed).")
		switch {
		case k.Created:
			fmt.Fprintf(env.Stdout, "Its passphrase is a new random one in %s (mode 0600): anyone who can read that file can read the tokens.\n", k.PassphraseFile)
		case k.PassphraseFile != "":
			fmt.Fprintf(env.Stdout, "Its passphrase is the one in %s.\n", k.PassphraseFile)
		default:
			fmt.Fprintln(env.Stdout, "Its passphrase is the agent's SCOUTS_KEYRING_PASSPHRASE(_FILE).")
		}
		fmt.Fprintln(env.Stdout, "Tokens kept elsewhere before stay there: log in (relay login, gmail connect) again to keep them here.")
		return nil
	}
	return usageErrorf("unknown subcommand %q (want status or use-file)", sub)
}

// keyringHint adds the way out to the agent's answer that no keyring can
// be used: its own words name a restart with --keyring file, which the
// running agent does not need.
func keyringHint(err error, env Env) error {
	var le *localclient.Error
	if !errors.As(err, &le) || le.Code != "unavailable" || !strings.Contains(le.Message, "keyring") ||
		strings.Contains(le.Message, "passphrase is not the one") {
		return err
	}
	return fmt.Errorf("%w\nOn a machine without a desktop keyring, keep the tokens in an encrypted file instead: %s keyring use-file (the running agent switches at once), then run this command again", err, env.program())
}
