/**
 * mcpTools against a real MCP server process over stdio (the echo server,
 * test/fixtures/mcp-echo-server.ts): tools named <server>.<tool> with the
 * server's description and schema; results, isError, structuredContent;
 * the idempotency key in _meta; the child's environment; abort; and a
 * child SIGKILLed between two calls.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { mcpTools, type McpTools } from '../../../src/adapters/mcp/index.js';
import type { ToolCall } from '../../../src/agent/tools.js';
import { VigilError } from '../../../src/errors.js';
import { echoStdioServer, recordedCalls } from '../../fixtures/mcp-echo-config.js';

const opened: McpTools[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((tools) => tools.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function recordFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-mcp-'));
  dirs.push(dir);
  return join(dir, 'calls.jsonl');
}

async function open(...args: Parameters<typeof mcpTools>): Promise<McpTools> {
  const tools = await mcpTools(...args);
  opened.push(tools);
  return tools;
}

function call(key = 'key-1', signal = new AbortController().signal): ToolCall {
  return { inboxId: 'alice', idempotencyKey: key, approvalId: null, signal, fetch: () => Promise.reject(new Error('no fetch')), memory: {} as ToolCall['memory'] };
}

function tool(tools: McpTools, name: string) {
  const found = tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return found;
}

it("lists the server's tools as <server>.<tool> with its descriptions and schemas, and runs them", async () => {
  const file = recordFile();
  const tools = await open({ servers: { echo: echoStdioServer(file) } });
  expect(tools.map((t) => t.name).sort()).toEqual(['echo.delete_all', 'echo.env', 'echo.fail', 'echo.say', 'echo.wait']);
  expect(tool(tools, 'echo.say')).toMatchObject({ description: 'Says the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } });

  // Text content joined; structuredContent when present; isError as a value, not a throw.
  expect(await tool(tools, 'echo.say').run({ text: 'hi' }, call('k-say'))).toBe('echo: hi');
  expect(await tool(tools, 'echo.delete_all').run({ folder: 'tmp' }, call('k-del'))).toEqual({ deleted: 'tmp', count: 3 });
  expect(await tool(tools, 'echo.fail').run({ why: 'no reason' }, call('k-fail'))).toEqual({ error: 'failed: no reason' });

  // Each call reached the server once, with Vigil's idempotency key in _meta.
  expect(recordedCalls(file).map(({ tool: name, input, idempotencyKey }) => ({ name, input, idempotencyKey }))).toEqual([
    { name: 'say', input: { text: 'hi' }, idempotencyKey: 'k-say' },
    { name: 'delete_all', input: { folder: 'tmp' }, idempotencyKey: 'k-del' },
    { name: 'fail', input: { why: 'no reason' }, idempotencyKey: 'k-fail' },
  ]);
});

it("the child gets only the env the config gives it and a minimal PATH: none of the service's environment", async () => {
  process.env.VIGIL_MCP_CANARY = 'canary-secret-value';
  try {
    const tools = await open({ servers: { echo: echoStdioServer(recordFile(), { env: { GIVEN: 'yes' } }) } });
    const env = JSON.parse((await tool(tools, 'echo.env').run({}, call())) as string) as Record<string, string>;
    expect(env.VIGIL_MCP_CANARY).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain('canary-secret-value');
    expect(env.GIVEN).toBe('yes');
    // Not even what the MCP SDK passes on by default (HOME, USER, SHELL, ...).
    for (const name of ['HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM']) expect(env[name], name).toBeUndefined();
    expect(env.PATH).toMatch(/\/usr\/bin/);
  } finally {
    delete process.env.VIGIL_MCP_CANARY;
  }
});

it('the connection is reused across calls; a SIGKILLed child is replaced on the next call', async () => {
  const file = recordFile();
  const tools = await open({ servers: { echo: echoStdioServer(file) } });
  const say = tool(tools, 'echo.say');
  expect(await say.run({ text: 'one' }, call('k1'))).toBe('echo: one');
  expect(await say.run({ text: 'two' }, call('k2'))).toBe('echo: two');
  const [first, second] = recordedCalls(file);
  expect(second!.pid).toBe(first!.pid);

  process.kill(first!.pid, 'SIGKILL');
  // Wait for the child to be gone, so the next call finds the connection closed.
  await waitUntil(() => !alive(first!.pid));
  expect(await say.run({ text: 'three' }, call('k3'))).toBe('echo: three');
  const third = recordedCalls(file)[2]!;
  expect(third).toMatchObject({ tool: 'say', input: { text: 'three' }, idempotencyKey: 'k3' });
  expect(third.pid).not.toBe(first!.pid);
});

it('calls from several runs at once after a crash share one new child', async () => {
  const file = recordFile();
  const tools = await open({ servers: { echo: echoStdioServer(file) } });
  const say = tool(tools, 'echo.say');
  expect(await say.run({ text: 'first' }, call('k0'))).toBe('echo: first');
  const first = recordedCalls(file)[0]!.pid;
  process.kill(first, 'SIGKILL');
  await waitUntil(() => !alive(first));
  const answers = await Promise.all(['a', 'b', 'c'].map((text) => say.run({ text }, call(`k-${text}`))));
  expect(answers).toEqual(['echo: a', 'echo: b', 'echo: c']);
  const pids = new Set(recordedCalls(file).slice(1).map((c) => c.pid));
  expect(pids.size).toBe(1);
  expect(pids.has(first)).toBe(false);
});

it('a call whose child dies under it fails the run (a plain, retryable Error), and the next call reconnects', async () => {
  const file = recordFile();
  const tools = await open({ servers: { echo: echoStdioServer(file) } });
  const pending = tool(tools, 'echo.wait').run({ ms: 30_000 }, call('k-wait'));
  await waitUntil(() => recordedCalls(file).length === 1);
  process.kill(recordedCalls(file)[0]!.pid, 'SIGKILL');
  const error = await pending.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(VigilError);
  expect((error as Error).message).toMatch(/^MCP server echo went away during wait/);
  expect(await tool(tools, 'echo.say').run({ text: 'back' }, call())).toBe('echo: back');
});

it("a run's abort cancels the call on the server", async () => {
  const file = recordFile();
  const tools = await open({ servers: { echo: echoStdioServer(file) } });
  const controller = new AbortController();
  const pending = tool(tools, 'echo.wait').run({ ms: 30_000 }, call('k-wait', controller.signal));
  await waitUntil(() => recordedCalls(file).length === 1);
  controller.abort(new Error('lease lost'));
  await expect(pending).rejects.toThrow();
  await waitUntil(() => recordedCalls(file).some((c) => c.tool === 'wait:aborted'));
});

it('a server that stays down is a clear error after a bounded number of attempts', async () => {
  const started = Date.now();
  const error = await mcpTools({ servers: { gone: { command: process.execPath, args: ['-e', 'process.exit(3)'] } } }).then(() => null, (e: unknown) => e);
  expect((error as Error).message).toMatch(/^MCP server gone did not answer after 3 attempts to connect/);
  expect(Date.now() - started).toBeLessThan(10_000);
});

it('bad servers are refused before anything starts', async () => {
  const refused = (options: unknown) => mcpTools(options as Parameters<typeof mcpTools>[0]);
  await expect(refused({ servers: { 'git.hub': { command: 'x' } } })).rejects.toThrow(/server name "git.hub"/);
  await expect(refused({ servers: { echo: { command: 'x', url: 'y' } } })).rejects.toThrow(/either a command \(stdio\) or a url/);
  await expect(refused({ servers: { echo: { command: 'x', env: { A: 1 } } } })).rejects.toThrow(/env must be an object of strings/);
  await expect(refused({ servers: {} })).rejects.toThrow(VigilError);
  await expect(refused({ servers: { gh: { url: 'https://api.example.com/mcp' } }, proxyUrl: 'http://127.0.0.1:8788' })).rejects.toThrow(
    /through the credential proxy only; give a path such as "github-mcp\/mcp"/,
  );
  await expect(refused({ servers: { gh: { url: 'gh/mcp' } } })).rejects.toThrow(/give mcpTools a proxyUrl/);
  await expect(refused({ servers: { gh: { url: 'gh/mcp' } } })).rejects.toMatchObject({ code: 'invalid_options' });
});

it("a server tool whose name is no Vigil name is refused at startup, naming it, and the server's child is stopped", async () => {
  const file = recordFile();
  const error = await mcpTools({ servers: { echo: echoStdioServer(file, { env: { EXTRA_TOOL: 'odd/name' } }) } }).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(VigilError);
  expect(error).toMatchObject({ code: 'invalid_options', message: expect.stringContaining('tool name "echo.odd/name"') });
  await waitUntil(() => serversFor(file).length === 0);
});

/** PIDs of live processes whose environment names this record file: the echo servers of one test (Linux's /proc). */
function serversFor(file: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`RECORD_FILE=${file}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
