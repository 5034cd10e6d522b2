// A small MCP server on stdio for tool-servers.spec.ts, built with the
// official TypeScript SDK that build/mcptest installs (make deps-test).
// Usage: node mcp-notes-server.cjs MCPTEST_DIR STATE_DIR. write_note's
// description is read from STATE_DIR/desc at start, and the process id
// written to STATE_DIR/pid, so that the spec can end it as a crash would
// and have it come back with a changed tool.
const { createRequire } = require('node:module');
const { join } = require('node:path');
const { readFileSync, writeFileSync } = require('node:fs');

const [mcptest, state] = process.argv.slice(2);
const sdk = createRequire(join(mcptest, 'package.json'));
const { Server } = sdk('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = sdk('@modelcontextprotocol/sdk/server/stdio.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = sdk('@modelcontextprotocol/sdk/types.js');

const desc = readFileSync(join(state, 'desc'), 'utf8').trim();
writeFileSync(join(state, 'pid'), String(process.pid));

const server = new Server({ name: 'notes', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'write_note',
      description: desc,
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    {
      name: 'read_notes',
      description: 'Read the notes.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
server.connect(new StdioServerTransport());
