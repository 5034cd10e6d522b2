/// <reference types="node" />
import { defineConfig } from 'vitest/config';

// `npm run dev` serves the UI with live reload against a running agent:
//   SCOUTS_AGENT=http://127.0.0.1:PORT SCOUTS_TOKEN=$(cat DATA/local-api.token) npm run dev
// The proxy presents the token and drops the page's Origin, which the agent
// would otherwise refuse as foreign.
const agent = process.env.SCOUTS_AGENT;

export default defineConfig({
  base: './',
  // Preact's JSX through Vite's own transform: no Babel, no plugin.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    target: 'es2022',
    assetsInlineLimit: 0,
  },
  server: agent
    ? {
        proxy: {
          '/api': {
            target: agent,
            changeOrigin: true,
            headers: { Authorization: `Bearer ${process.env.SCOUTS_TOKEN ?? ''}` },
            configure: (proxy) => proxy.on('proxyReq', (req) => req.removeHeader('origin')),
          },
        },
      }
    : undefined,
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
