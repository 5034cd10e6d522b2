package cli

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/mcpserve"
)

// runMCP is `scouts mcp …`: Scouts as an MCP server for AI agents (serve,
// http). The commands that connect other MCP servers (their tools as
// actions) join this switch.
func runMCP(ctx context.Context, args []string, env Env) error {
	if len(args) == 0 {
		return usageErrorf("want: mcp serve, or mcp http [on|off]")
	}
	switch args[0] {
	case "serve":
		return runMCPServe(ctx, args[1:], env)
	case "http":
		return runMCPHTTP(ctx, args[1:], env)
	}
	if ok, err := runMCPServers(ctx, args[0], args[1:], env); ok {
		return err
	}
	return usageErrorf("unknown mcp command %q: want serve, http, %s", args[0], strings.Join(mcpServerCommands, ", "))
}

// runMCPServe serves one AI agent on standard input and output until it
// goes away: an MCP client starts `scouts mcp serve` as its stdio server.
// It talks to the running agent through the local API, like every
// command; standard output carries the protocol alone.
func runMCPServe(ctx context.Context, args []string, env Env) error {
	f := newFlags("mcp serve", env, false)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageErrorf("mcp serve takes no arguments")
	}
	c.ClientName = "mcp"
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	err = mcpserve.RunStdio(ctx, mcpserve.Options{API: c, Version: env.Version, Logger: log})
	if err != nil && ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	return err
}

// runMCPHTTP shows, or switches on or off, Scouts' MCP endpoint over
// streamable HTTP on the agent's loopback listener.
func runMCPHTTP(ctx context.Context, args []string, env Env) error {
	f := newFlags("mcp http", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	var st apitype.MCPServe
	switch {
	case len(pos) == 0:
		st, err = c.MCPServe(ctx)
	case len(pos) == 1 && (pos[0] == "on" || pos[0] == "off"):
		st, err = c.SetMCPHTTP(ctx, pos[0] == "on")
	default:
		return usageErrorf("want: mcp http [on|off]")
	}
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, st)
	}
	if !st.HTTP {
		fmt.Fprintln(env.Stdout, "Scouts' MCP endpoint over HTTP is off (scouts mcp http on switches it on; scouts mcp serve works without it, on stdio).")
		return nil
	}
	where := st.URL
	if where == "" {
		where = st.Path + " on the agent's loopback listener (start the agent with --listen 127.0.0.1:PORT)"
	}
	fmt.Fprintf(env.Stdout, "Scouts' MCP endpoint over HTTP is on: %s\n", where)
	fmt.Fprintln(env.Stdout, "Its bearer token is in mcp.token in the data directory (scouts mcp http --json shows it); it opens this endpoint only, not the local API.")
	return nil
}
