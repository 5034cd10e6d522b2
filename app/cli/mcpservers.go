package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
)

// The other MCP servers whose tools are actions (docs/mcp.md): `scouts mcp
// add|list|remove|refresh|approve|trust`. runMCP (mcp.go, Scouts' own
// MCP server) hands these commands here through runMCPServers.

// mcpServerCommands are the subcommands runMCPServers serves.
var mcpServerCommands = []string{"add", "list", "remove", "refresh", "approve", "trust"}

// runMCPServers runs `scouts mcp CMD …` for the commands that manage other
// MCP servers; handled is false for any other command.
func runMCPServers(ctx context.Context, cmd string, args []string, env Env) (handled bool, err error) {
	switch cmd {
	case "add":
		return true, runMCPAdd(ctx, args, env)
	case "list":
		return true, runMCPList(ctx, args, env)
	case "remove":
		return true, runMCPRemove(ctx, args, env)
	case "refresh":
		return true, runMCPRefresh(ctx, args, env)
	case "approve":
		return true, runMCPApprove(ctx, args, env)
	case "trust":
		return true, runMCPTrust(ctx, args, env)
	}
	return false, nil
}

// secretMap reads repeated K=SECRETNAME flags.
func secretMap(flag string, list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, usageErrorf("--%s %q: want NAME=SECRET, the name of a secret (scouts secrets set SECRET), never its value", flag, kv)
		}
		out[k] = v
	}
	return out, nil
}

// runMCPAdd is `scouts mcp add NAME [flags] -- COMMAND ARGS…` (stdio) or
// `scouts mcp add NAME --url URL [flags]` (streamable HTTP).
func runMCPAdd(ctx context.Context, args []string, env Env) error {
	var command []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
	}
	f := newFlags("mcp add", env, true)
	u := f.String("url", "", "the server's streamable HTTP endpoint (instead of a command after --)")
	token := f.String("token-secret", "", "the secret sent as \"Authorization: Bearer\" (scouts secrets set NAME)")
	trusted := f.Bool("trusted", false, "believe the server's readOnlyHint: its read-only tools default to allow")
	var envs, headers multiFlag
	f.Var(&envs, "env", "VAR=SECRET: the server's environment variable VAR from the secret SECRET (repeatable)")
	f.Var(&headers, "header", "Header=SECRET: an HTTP header from the secret SECRET (repeatable)")
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("want: mcp add NAME -- COMMAND ARGS…, or mcp add NAME --url URL")
	}
	in := apitype.AddMCPServer{Name: pos[0], Command: command, URL: *u, TokenSecret: *token, Trusted: *trusted}
	if in.Env, err = secretMap("env", envs); err != nil {
		return err
	}
	if in.Headers, err = secretMap("header", headers); err != nil {
		return err
	}
	s, err := c.AddMCPServer(ctx, in)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, s)
	}
	printMCPServer(env.Stdout, s)
	if s.LastError == "" && len(s.Tools) > 0 {
		fmt.Fprintf(env.Stdout, "Its tools are blocked until you approve them: scouts mcp approve %s (all) or scouts mcp approve %s TOOL.\n", s.Name, s.Name)
	}
	return nil
}

func runMCPList(ctx context.Context, args []string, env Env) error {
	f := newFlags("mcp list", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("want: mcp list [NAME]")
	}
	var all []apitype.MCPServer
	if len(pos) == 1 {
		s, err := c.MCPServer(ctx, pos[0])
		if err != nil {
			return err
		}
		all = []apitype.MCPServer{s}
	} else if all, err = c.MCPServers(ctx); err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, all)
	}
	if len(all) == 0 {
		fmt.Fprintln(env.Stdout, "No MCP servers. Add one: scouts mcp add NAME -- COMMAND ARGS…, or scouts mcp add NAME --url URL.")
		return nil
	}
	for i, s := range all {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		printMCPServer(env.Stdout, s)
	}
	return nil
}

// printMCPServer prints a server, its tools with their state and mode, and
// the diff of each changed tool.
func printMCPServer(w io.Writer, s apitype.MCPServer) {
	where := s.URL
	if s.Transport == "stdio" {
		where = strings.Join(s.Command, " ")
	}
	trust := ""
	if s.Trusted {
		trust = ", trusted"
	}
	fmt.Fprintf(w, "%s (%s%s): %s\n", s.Name, s.Transport, trust, where)
	if s.LastError != "" {
		fmt.Fprintf(w, "  last error: %s\n", s.LastError)
	}
	if len(s.Tools) == 0 {
		fmt.Fprintln(w, "  no tools listed yet (scouts mcp refresh "+s.Name+")")
		return
	}
	tw := table(w)
	fmt.Fprintln(tw, "  ACTION\tSTATUS\tRISK\tMODE\tDESCRIPTION")
	for _, t := range s.Tools {
		mode := t.Mode
		if t.Blocked != "" {
			mode = "blocked"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", t.Action, t.Status, t.Risk, mode, clipText(t.Description, 60))
	}
	tw.Flush()
	for _, t := range s.Tools {
		if len(t.Diff) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n  %s changed since it was approved (approved | listed now):\n", t.Name)
		for _, d := range t.Diff {
			if d.Op == "same" {
				continue
			}
			fmt.Fprintf(w, "    %-8s %s | %s\n", d.Op, d.Old, d.New)
		}
	}
	if s.Drifted > 0 {
		fmt.Fprintf(w, "  %s waiting for review: scouts mcp approve %s [TOOL]\n", plural(s.Drifted, "tool"), s.Name)
	}
}

func runMCPRemove(ctx context.Context, args []string, env Env) error {
	f := newFlags("mcp remove", env, false)
	name, c, err := f.oneArg(args, "server name")
	if err != nil {
		return err
	}
	if err := c.RemoveMCPServer(ctx, name); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Removed MCP server %s with its pins; rules and plans naming its tools can no longer run them.\n", name)
	return nil
}

func runMCPRefresh(ctx context.Context, args []string, env Env) error {
	f := newFlags("mcp refresh", env, true)
	name, c, err := f.oneArg(args, "server name")
	if err != nil {
		return err
	}
	s, err := c.RefreshMCPServer(ctx, name)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, s)
	}
	printMCPServer(env.Stdout, s)
	return nil
}

// runMCPApprove is `scouts mcp approve NAME [TOOL]`: pins the tool (or
// every tool waiting for review) as the server lists it now.
func runMCPApprove(ctx context.Context, args []string, env Env) error {
	f := newFlags("mcp approve", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usageErrorf("want: mcp approve NAME [TOOL]")
	}
	tool := ""
	if len(pos) == 2 {
		tool = pos[1]
	}
	res, err := c.ApproveMCPServer(ctx, pos[0], tool)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, res)
	}
	if len(res.Approved) == 0 {
		fmt.Fprintf(env.Stdout, "Nothing of %s was waiting for review.\n", pos[0])
	} else {
		fmt.Fprintf(env.Stdout, "Approved and pinned: %s.\n", strings.Join(res.Approved, ", "))
	}
	printMCPServer(env.Stdout, res.Server)
	return nil
}

// runMCPTrust is `scouts mcp trust NAME [--off]`.
func runMCPTrust(ctx context.Context, args []string, env Env) error {
	f := newFlags("mcp trust", env, true)
	off := f.Bool("off", false, "no longer believe the server's read-only hints")
	name, c, err := f.oneArg(args, "server name")
	if err != nil {
		return err
	}
	s, err := c.TrustMCPServer(ctx, name, !*off)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, s)
	}
	if s.Trusted {
		fmt.Fprintf(env.Stdout, "%s is trusted: its tools that say they only read default to allow; the others still need approval.\n", name)
	} else {
		fmt.Fprintf(env.Stdout, "%s is no longer trusted: each of its tools needs approval unless a policy says otherwise.\n", name)
	}
	return nil
}
