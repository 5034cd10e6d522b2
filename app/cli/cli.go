// Package cli is the `scouts` command line: the agent itself (`scouts
// agent`) and the subcommands that talk to a running agent over its socket.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/app/window"
	"github.com/scouts-hq/scouts/frontend"
)

// Env is what a command needs from the outside world; tests pass their own.
type Env struct {
	Stdout, Stderr io.Writer
	// Stdin is where `relay login URL -` reads the token; nil: os.Stdin.
	Stdin   io.Reader
	Version string
	// Program is how the user invoked us (os.Args[0]), so that hints say
	// "bin/scouts suggestions" when that is what works.
	Program string
}

func (e Env) program() string {
	if e.Program == "" {
		return "scouts"
	}
	return e.Program
}

const usage = `Scouts: turn what arrives into suggestions you approve.

Usage: scouts <command> [flags]
       scouts                            open the window (starting the agent if needed)

The desktop:
  agent [--data DIR] [--listen 127.0.0.1:PORT] [--ui] [--no-tray] [--definitions DIR]
                                         run the always-on agent (with its tray icon
                                         when the desktop has one); --ui also serves
                                         the web UI and prints its link
  window [--view scouts|tasks|…]         open the window; starts the agent if none runs

Talking to a running agent:
  status                                 version, scouts by health, cards per lane
  scouts                                 list scouts: their IDs, health, what each watches
  scouts add-folder PATH [--auto] [--name N] [--include GLOB]... [--exclude GLOB]... [--existing]
          [--create] [--force]           watch a folder (--create makes it if missing)
  scouts enable|disable|review|auto|run|rm ID
  scouts runs ID [--limit N]             its latest runs: what started each, what it found,
                                         the definition version it ran (see history)
  scouts rules SCOUT_ID                  a scout's rules, in order (docs/rules.md)
  scouts rules add|edit|test SCOUT_ID FILE|-
                                         add a rule, replace one, or see what it would
                                         have done to the scout's latest 50 items
  scouts rules rm|enable|disable SCOUT_ID RULE_ID | scouts rules move SCOUT_ID RULE_ID N
  scouts schedule ID [--cron EXPR] [--tz ZONE] [--overlap skip|queue-one|allow]
          [--catch-up run-once|skip] | --clear
                                         when the scout runs by itself (docs/schedules.md);
                                         without flags it shows the schedule
  scouts budget ID [--run N] [--day N]   cap its model tokens per run and per day (never
                                         above the agent's --llm-daily-tokens); without
                                         flags it shows the budget
  scouts edit ID --describe "…" [--yes] change it in plain words: the model proposes the
                                         definition changed, shown as a diff with the risks
                                         it adds; saved once you say yes (--yes: unasked)
                                         These, enable|disable|review|auto, the rules'
                                         changes and learning take --write-file: a scout
                                         a definitions file manages refuses a change
                                         unless it is written to the file too
  export [ID...] [--yaml] [--history]    the scouts' definitions as JSON, or YAML (docs/definitions.md);
                                         --history adds each one's past versions
  import FILE|- [--apply] [--no-history] what importing definitions (JSON or YAML) would
                                         change; --apply changes it. A history is
                                         recreated where the scout has none to differ;
                                         --no-history imports the definitions alone
  history SCOUT_ID                       a scout's definition versions
  diff SCOUT_ID FROM TO                  what changed between two versions
  rollback SCOUT_ID VERSION              make an earlier version current again (as a new one)
  suggestions [--status pending|approved|rejected|expired|all] [--lane inbox|screened|spam|all]
                                         list suggestions (default: the pending inbox,
                                         most likely to be approved first; decided cards
                                         leave it: see them with --status)
  show ID                                one suggestion with its audit trail ("why")
  approve ID --as task|note|event|project [--title T] [--body B] [--due DATE]
          [--archive|--no-archive] [--label L|--no-label] [--always]
                                         approve with the card's plan: the plan's flags
                                         tick or untick its actions; --always also allows
                                         them for the scout from now on
  plan ID [--as KIND]                    what approving does (or did): each action, its
                                         mode and where it comes from, its state
  action retry|drop ID N                 retry or give up a card's failing action N
  actions                                the actions Scouts can take, with their risk
  policies [SCOUT_ID]                    each action's mode (allow, deny,
                                         require_approval) and where it comes from
  policies set [--scout ID] ACTION MODE | policies rm [--scout ID] ACTION
  policies defaults [--archive on|off] [--label L|--no-label]
                                         what Gmail cards propose
  reject ID
  revive ID                              bring an expired suggestion back to pending
  spam ID                                reject as spam (teaches the scout's learner)
  bring-back ID                          from Screened or Spam back to the inbox (alias: restore)
  screen ID                              from the inbox to Screened
  snooze ID WHEN                         put a card (or a task) off until WHEN ("in 3 hours", "tomorrow
                                         morning", "next week", a date): back at the top of the inbox then
  unsnooze ID                            take a snoozed card back now
  brief [--at HH:MM|off]                 the daily brief: the inbox, what was screened or filed
                                         as spam since the last one, tasks due, today's events
  alarms [--all] | alarms ack ID         what is failing (a scout's runs, a budget, a definitions
                                         file…) until its cause goes away | acknowledge one
  screen-sender ID --show|--screen       the screener: always show or always screen the
                                         card's sender (its list, its folder) — a rule first
                                         in the scout's rules, and the cards waiting settled
  senders SCOUT_ID                       a scout's senders and lists: cards, approve rate,
                                         last approval, how each offers to unsubscribe
  unsubscribe SCOUT_ID SENDER…           unsubscribe from each (sender:ADDRESS, list:ID) through
                                         the outbox, and screen it from then on
  undo ID                                take back a decision (approve, reject, spam) within
                                         its 30 seconds: the card is pending again
  learning SCOUT_ID [--reset] [--cold-start N] [--screen-below P] [--spam-above P]
           [--pending-cap N]             a scout's learner: state and thresholds; the
           [--cooldown D]                pending cards it may have waiting before more are held;
           [--notify-per-hour N]         the gates of its actions: the same action on the same
           [--quiet HH:MM-HH:MM|off]     item within D blocked, posts past N an hour blocked,
                                         allowed write actions awaiting approval in quiet hours
  tasks|notes|events|projects [--json]   list entities, with what each kind has (a task's
                                         due date, an event's time and place)
  tasks|notes|events|projects add TITLE [--body B] [--due DATE] (tasks)
          [--starts T] [--ends T] [--location L] (events)
  tasks done ID | <kind> rm ID
  audit TRACE_ID [--json]                an item's whole story
  search QUERY… [--limit N] [--json]     find cards (every lane and status), tasks, notes,
                                         events, projects: words as prefixes, "phrases",
                                         -word, from: kind: lane: scout: before: after: is:
  calendar [token|revoke] [--json]       the calendar feed (events, tasks with a due date):
                                         its state, a new token (revokes the old), or off
  settings [--autostart on|off] [--notifications on|off] [--quiet-hours 22:00-07:00|off]
  relay login URL TOKEN|-                log in to a relay with the device token from
                                         scouts-relay device add (- reads it from standard
                                         input); it is kept in the OS keyring
  relay logout | relay status            forget the relay (and its token) | show the link
  gmail connect [--no-wait]              connect a Gmail account in the browser (the agent
                                         needs --google-client-id, docs/gmail.md); the
                                         account gets a Gmail scout unless it has one
  gmail [accounts] | gmail disconnect EMAIL
  keyring [use-file]                     where the agent keeps tokens; use-file switches
                                         the running agent to its encrypted file keyring
                                         (a machine without a desktop keyring)
  mcp serve                              Scouts as an MCP server on stdio, for an AI agent
                                         to read the inbox and propose cards (docs/mcp.md)
  mcp http [on|off]                      the same over streamable HTTP on the agent's
                                         loopback listener, with its own token (off by default)
  mcp add NAME -- COMMAND ARGS…          another MCP server's tools as actions (mcp.NAME.TOOL),
  mcp add NAME --url URL                 on stdio or streamable HTTP; [--env VAR=SECRET]
                                         [--header H=SECRET] [--token-secret SECRET] name
                                         secrets, never values; its tools wait for approval
  mcp list [NAME] | mcp refresh NAME     its tools, their modes, what changed (with a diff)
  mcp approve NAME [TOOL]                pin the tools as listed now (all waiting, or one)
  mcp trust NAME [--off] | mcp remove NAME
                                         believe its read-only hints | forget it and its pins
  secrets [list] | secrets set NAME | secrets rm NAME
                                         secrets in the OS keyring, named by definitions
                                         ({"secret": "NAME"}); set reads the value from
                                         standard input. llm-api-key is the model's key
  version

Measuring (no agent needed; runs scouts-eval, which make eval builds beside scouts):
  eval [DIR] [--policy FILE] [--train N] [--seed S] [--spam-cv K] [--compare] [--json]
       [--cold-start N] [--screen-below P] [--spam-above P] [--min-spam N]
                                         triage and the learner on a corpus of RFC 822
                                         files, decided by a simulated user (default: the
                                         SpamAssassin development groups; see docs/triage.md)

Every command that talks to the agent takes --data DIR, anywhere on the line (default:
$SCOUTS_DATA or the OS data directory). scouts COMMAND --help lists a command's flags.
`

// Main runs the command line and returns the process exit code.
func Main(args []string, env Env) int {
	cmd, rest, err := splitCommand(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "scouts: %v\n", err)
		return 2
	}
	if cmd == "" {
		// A bare `scouts` is what a launcher runs: the window, with the
		// agent started first if none runs (the usage where there is no
		// window).
		if _, err := window.WindowBinary(); err == nil && hasDisplay() {
			cmd = "window"
		}
	}
	if cmd == "" || cmd == "help" {
		fmt.Fprint(env.Stdout, usage)
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "agent":
		err = runAgent(ctx, rest, env)
	case "window":
		err = runWindow(ctx, rest, env)
	case "settings":
		err = runSettings(ctx, rest, env)
	case "relay":
		err = runRelay(ctx, rest, env)
	case "gmail":
		err = runGmail(ctx, rest, env)
	case "keyring":
		err = runKeyring(ctx, rest, env)
	case "mcp":
		err = runMCP(ctx, rest, env)
	case "version":
		fmt.Fprintln(env.Stdout, "scouts", env.Version)
	case "status":
		err = runStatus(ctx, rest, env)
	case "scouts":
		err = runScouts(ctx, rest, env)
	case "suggestions":
		err = runSuggestions(ctx, rest, env)
	case "show":
		err = runShow(ctx, rest, env)
	case "approve":
		err = runApprove(ctx, rest, env)
	case "reject":
		err = runReject(ctx, rest, env)
	case "spam":
		err = runLaneAction(ctx, spamAction, rest, env)
	case "bring-back", "restore":
		err = runLaneAction(ctx, bringBackAction, rest, env)
	case "screen":
		err = runLaneAction(ctx, screenAction, rest, env)
	case "snooze":
		err = runSnooze(ctx, rest, env)
	case "unsnooze":
		err = runLaneAction(ctx, unsnoozeAction, rest, env)
	case "brief":
		err = runBrief(ctx, rest, env)
	case "alarms", "alarm":
		err = runAlarms(ctx, rest, env)
	case "screen-sender":
		err = runScreenSender(ctx, rest, env)
	case "senders":
		err = runSenders(ctx, rest, env)
	case "unsubscribe":
		err = runUnsubscribe(ctx, rest, env)
	case "undo":
		err = runUndo(ctx, rest, env)
	case "learning":
		err = runLearning(ctx, rest, env)
	case "tasks", "notes", "events", "projects", "task", "note", "event", "project":
		err = runEntities(ctx, strings.TrimSuffix(cmd, "s"), rest, env)
	case "audit":
		err = runAudit(ctx, rest, env)
	case "search":
		err = runSearch(ctx, rest, env)
	case "calendar":
		err = runCalendar(ctx, rest, env)
	case "secrets", "secret":
		err = runSecrets(ctx, rest, env)
	case "revive":
		err = runRevive(ctx, rest, env)
	case "plan":
		err = runPlan(ctx, rest, env)
	case "action":
		err = runAction(ctx, rest, env)
	case "actions":
		err = runActions(ctx, rest, env)
	case "policies":
		err = runPolicies(ctx, rest, env)
	case "export":
		err = runExport(ctx, rest, env)
	case "import":
		err = runImport(ctx, rest, env)
	case "history":
		err = runHistory(ctx, rest, env)
	case "diff":
		err = runDiff(ctx, rest, env)
	case "rollback":
		err = runRollback(ctx, rest, env)
	case "eval":
		return runEval(ctx, rest, env) // another program, which reports its own errors
	default:
		// One line: the whole usage would push the mistake off the screen.
		fmt.Fprintf(env.Stderr, "scouts: unknown command %q%s; scouts help lists the commands\n", cmd, didYouMean(cmd, commandNames()))
		return 2
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		// "scouts: …", not "scouts <command>: …": the person just typed
		// the command, and `scouts scouts: …` read like a stutter.
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(env.Stderr, "scouts: %s\n", ue.msg)
			return 2
		}
		fmt.Fprintf(env.Stderr, "scouts: %v\n", keyringHint(managedHint(err), env))
		return 1
	}
	return 0
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return usageError{msg: fmt.Sprintf(format, args...)}
}

// flags is a subcommand's flag set with the options every command shares.
type flags struct {
	*flag.FlagSet
	// help is where --help prints the command's flags.
	help io.Writer
	data string
	json bool
	// writeFile: --write-file, for the commands that change a scout.
	writeFile bool
}

func newFlags(name string, env Env, withJSON bool) *flags {
	f := &flags{FlagSet: flag.NewFlagSet("scouts "+name, flag.ContinueOnError), help: env.Stdout}
	// The flag package would print every flag after any mistake; parse
	// says what is wrong in one line instead, and lists them on --help.
	f.SetOutput(io.Discard)
	f.StringVar(&f.data, "data", "", "data directory of the agent (default: $SCOUTS_DATA or the OS data directory)")
	if withJSON {
		f.BoolVar(&f.json, "json", false, "print JSON")
	}
	return f
}

// parse parses flags wherever they appear among the positional arguments
// (`scouts approve ID --as task` as well as `scouts approve --as task ID`),
// which the flag package alone does not do.
func (f *flags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(f.help, "Usage of %s:\n", f.Name())
				f.SetOutput(f.help)
				f.PrintDefaults()
				f.SetOutput(io.Discard)
				return nil, err
			}
			return nil, usageErrorf("%v (%s --help lists its flags)", err, f.Name())
		}
		args = f.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// start parses a command's arguments and returns the positional ones with
// a client for the agent.
func (f *flags) start(args []string) ([]string, *localclient.Client, error) {
	pos, err := f.parse(args)
	if err != nil {
		return nil, nil, err
	}
	c, err := f.client()
	return pos, c, err
}

// oneArg parses a command that takes exactly one argument and returns it
// with a client for the agent.
func (f *flags) oneArg(args []string, what string) (string, *localclient.Client, error) {
	pos, c, err := f.start(args)
	if err != nil {
		return "", nil, err
	}
	if len(pos) != 1 {
		return "", nil, usageErrorf("want exactly one %s", what)
	}
	return pos[0], c, nil
}

func (f *flags) dataDir() (string, error) {
	if f.data != "" {
		return f.data, nil
	}
	return datadir.DefaultDataDir()
}

// client returns a client for the agent of the data directory.
func (f *flags) client() (*localclient.Client, error) {
	dir, err := f.dataDir()
	if err != nil {
		return nil, err
	}
	c := localclient.NewSocket(datadir.SocketPath(dir))
	c.ClientName, c.WriteFile = "cli", f.writeFile
	return c, nil
}

// changesScout gives a command that changes a scout --write-file: a scout
// a definitions file manages is then changed by writing its file too.
func (f *flags) changesScout() *flags {
	f.BoolVar(&f.writeFile, "write-file", false, "for a scout a definitions file manages: make the change and write it to the file")
	return f
}

// managedHint names --write-file in the agent's refusal to change a scout
// a definitions file manages, whose words are for API clients.
func managedHint(err error) error {
	var le *localclient.Error
	if !errors.As(err, &le) || le.Code != "conflict" {
		return err
	}
	const api = " (or ask to write it: ?write_file=true)"
	if !strings.HasSuffix(le.Message, api) {
		return err
	}
	return errors.New(strings.Replace(err.Error(), api, ", or run the command again with --write-file to write this change to it", 1))
}

func runAgent(ctx context.Context, args []string, env Env) error {
	f := newFlags("agent", env, false)
	listen := f.String("listen", "", "also serve the local API on this loopback address, e.g. 127.0.0.1:0 (bearer token in DATA/local-api.token)")
	inbox := f.String("inbox", datadir.DefaultInbox(), "folder the first run watches (empty: none)")
	logLevel := f.String("log-level", "info", "debug, info, warn or error")
	logJSON := f.Bool("log-json", false, "log JSON lines instead of text")
	relayURL := f.String("relay", "", "connect to this relay (https://relay.example.com) for webhook and cloud scouts")
	tokenFile := f.String("device-token-file", "", "file holding this device's relay token (from scouts-relay device add)")
	ui := f.Bool("ui", false, "also serve the web UI on the loopback listener (default --listen 127.0.0.1:0) and print its link")
	defs := f.String("definitions", "", "folder of scout definition files to keep the scouts in step with (default: scouts.d in the OS configuration folder, e.g. ~/.config/scouts/scouts.d)")
	noTray := f.Bool("no-tray", false, "no tray icon (desktop notifications still show when the desktop has a session bus)")
	g := gmailFlags(f)
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("unexpected argument %q", pos[0])
	}
	dir, err := f.dataDir()
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usageErrorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	relayToken, err := readDeviceToken(*relayURL, *tokenFile)
	if err != nil {
		return err
	}
	hopts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(env.Stderr, hopts)
	if *logJSON {
		h = slog.NewJSONHandler(env.Stderr, hopts)
	}
	cfg := agent.Config{
		DataDir: dir, Listen: *listen, Inbox: *inbox, Version: env.Version, RelayURL: *relayURL, RelayToken: relayToken,
		Logger: slog.New(h), Out: env.Stdout, Program: env.program(), DefinitionsDir: *defs,
	}
	if *ui {
		cfg.UI = frontend.Dist()
		if cfg.Listen == "" {
			cfg.Listen = "127.0.0.1:0"
		}
	}
	// The tray and notifications (app/tray), and the login entry
	// (app/autostart): see desktop.go.
	ctx, desk := newDesktop(ctx, dir, !*noTray, cfg.Logger)
	cfg.Ready = desk.ready
	cfg.Autostart = autostartHook(dir)
	if err := g.apply(&cfg, env); err != nil {
		return err
	}
	err = agent.Run(ctx, cfg)
	desk.wait()
	return err
}

// readDeviceToken reads the relay device token from its file, refusing a
// file other users can read: the token is a credential.
func readDeviceToken(relayURL, path string) (string, error) {
	if relayURL == "" {
		if path != "" {
			return "", usageErrorf("--device-token-file needs --relay URL")
		}
		return "", nil
	}
	if path == "" {
		return "", usageErrorf("--relay needs --device-token-file (the token printed by scouts-relay device add)")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("device token: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("device token file %s is readable by other users (mode %v); run: chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("device token: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("device token file %s is empty", path)
	}
	return tok, nil
}
