package core

import (
	"github.com/scouts-hq/scouts/app/mcpclient"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// The tools of other MCP servers are actions (app/mcpclient, docs/mcp.md):
// the manager keeps the registry, starts a server when one of its tools
// is listed or called, and hands the engine the tools as catalogue
// entries and their executor.

// newMCP builds the MCP servers' manager, before the engine, which asks
// it for the tools at each look-up.
func (c *Core) newMCP() {
	c.mcp = mcpclient.New(mcpclient.Config{Store: c.DB, Secret: c.cfg.Secrets, Logger: c.log, Now: c.now, Emit: c.Bus.Publish})
}

// mcpEngine is what the engine's configuration takes from the manager.
func (c *Core) mcpEngine(cfg engine.Config) engine.Config {
	cfg.ExtraActions = c.mcp.Actions
	cfg.ExecutorFor = c.mcp.ExecutorFor
	return cfg
}

// MCP is the MCP servers whose tools are actions.
func (c *Core) MCP() *mcpclient.Manager { return c.mcp }
