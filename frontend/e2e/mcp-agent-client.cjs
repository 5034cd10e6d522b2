// A small AI agent for agent-proposal.spec.ts: it connects to Scouts'
// MCP server (`scouts mcp serve`, over stdio) with the official TypeScript
// SDK that build/mcptest installs (make deps-test), proposes a task, and
// waits for the person's decision with get_decision.
// Usage: node mcp-agent-client.cjs MCPTEST_DIR SCOUTS_BIN DATA_DIR TITLE
// It prints one JSON line for the proposal's answer, then one for the
// decision, and exits.
const { createRequire } = require('node:module');
const { join } = require('node:path');

const [mcptest, bin, data, title] = process.argv.slice(2);
const sdk = createRequire(join(mcptest, 'package.json'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');

async function main() {
  const transport = new StdioClientTransport({
    command: bin,
    args: ['mcp', 'serve', '--data', data],
    env: { ...process.env },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'playwright-coder', version: '1' });
  await client.connect(transport);
  const call = async (name, args, opts) => {
    const res = await client.callTool({ name, arguments: args }, undefined, opts);
    if (res.isError) throw new Error(`${name}: ${res.content.map((c) => c.text).join(' ')}`);
    return res.structuredContent;
  };
  const p = await call('propose', {
    kind: 'task',
    title,
    body: 'The release branch is green.',
    reason: 'asked to post the release note once the tests pass',
  });
  process.stdout.write(JSON.stringify(p) + '\n');
  // Waits on the agent's stream for the person; progress keeps it alive.
  const d = await call('get_decision', { id: p.id, wait_seconds: 120 }, { timeout: 150_000, resetTimeoutOnProgress: true, onprogress: () => {} });
  process.stdout.write(JSON.stringify(d) + '\n');
  await client.close();
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
