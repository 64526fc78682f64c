/**
 * The permission policy on its own: every decision and every refusal of a
 * bad policy, with the exact reason the model and the operator read.
 * (The same rules through the runtime: tool-loop.test.ts, claude-agent.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { decide, validatePermissions } from '../../src/agent/permissions.js';
import { VigilError } from '../../src/errors.js';

describe('decide', () => {
  const policy = { lookup: 'allow', wipe: 'deny', refund: { ask: { expiresInMs: 60_000 } } } as const;

  it('allow, deny and ask as the policy says', () => {
    expect(decide(policy, 'lookup', true)).toEqual({ kind: 'allow' });
    expect(decide(policy, 'wipe', true)).toEqual({ kind: 'deny', reason: 'wipe is denied by policy' });
    expect(decide(policy, 'refund', true)).toEqual({ kind: 'ask', expiresInMs: 60_000 });
  });

  it('a tool the policy does not name is denied, never allowed or asked about', () => {
    expect(decide(policy, 'export', true)).toEqual({ kind: 'deny', reason: 'export is not permitted for this agent' });
    expect(decide({}, 'lookup', true)).toEqual({ kind: 'deny', reason: 'lookup is not permitted for this agent' });
  });

  it('a tool that does not exist is denied whatever the policy says', () => {
    expect(decide(policy, 'lookup', false)).toEqual({ kind: 'deny', reason: 'there is no tool named "lookup"' });
    expect(decide(policy, 'format disk', false)).toEqual({ kind: 'deny', reason: 'there is no tool named "format disk"' });
  });

  it('names inherited from Object.prototype are not permissions', () => {
    expect(decide(policy, 'toString', true)).toEqual({ kind: 'deny', reason: 'toString is not permitted for this agent' });
    expect(decide(policy, 'constructor', true)).toEqual({ kind: 'deny', reason: 'constructor is not permitted for this agent' });
    expect(decide(policy, '__proto__', true)).toEqual({ kind: 'deny', reason: '__proto__ is not permitted for this agent' });
  });
});

describe('validatePermissions', () => {
  const tools = ['lookup', 'refund'];
  const refusal = (permissions: unknown, names: readonly string[] = tools): string => {
    try {
      validatePermissions(permissions, names);
    } catch (error) {
      expect(error).toBeInstanceOf(VigilError);
      expect((error as VigilError).code).toBe('invalid_options');
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(permissions)}`);
  };

  it('no policy is an empty one (everything denied); a good one comes back as it is', () => {
    expect(validatePermissions(undefined, tools)).toEqual({});
    const good = { lookup: 'allow', refund: { ask: { expiresInMs: 1 } } };
    expect(validatePermissions(good, tools)).toBe(good);
    expect(validatePermissions({ lookup: 'deny' }, tools)).toEqual({ lookup: 'deny' });
  });

  it('refuses a policy that is not an object of tool names', () => {
    const shape = 'permissions must be an object of tool name or pattern: "allow" | "deny" | { ask: { expiresInMs } }';
    for (const bad of [null, [], 'allow', 3]) expect(refusal(bad)).toBe(shape);
  });

  it('refuses a name that is not one of the tools, listing them', () => {
    expect(refusal({ refnd: 'allow' })).toBe('permissions names "refnd", which is not one of the tools (lookup, refund)');
    expect(refusal({ lookup: 'allow' }, [])).toBe('permissions names "lookup", which is not one of the tools (none)');
  });

  it('refuses anything but allow, deny or an ask with a positive whole number of ms', () => {
    const message = 'permissions.refund must be "allow", "deny" or { ask: { expiresInMs: <ms from 1 to 315576000000> } }';
    // 2^53-1 and ten years and a day: past the approval's bound (store bounds.ts), so the start fails, not a run.
    for (const bad of ['ask', 'Allow', null, {}, { ask: null }, { ask: {} }, { ask: { expiresInMs: '60000' } }, { ask: { expiresInMs: 0 } }, { ask: { expiresInMs: -1 } }, { ask: { expiresInMs: 1.5 } }, { ask: { expiresInMs: 2 ** 53 } }, { ask: { expiresInMs: 2 ** 53 - 1 } }, { ask: { expiresInMs: 315_576_000_001 } }]) {
      expect(refusal({ refund: bad }), JSON.stringify(bad)).toBe(message);
    }
  });

  it('an ask may name its reminder: a share of its life in (0, 1), or null for none; anything else names the tool', () => {
    for (const remindAt of [0.5, 0.001, 0.999, null]) {
      const good = { refund: { ask: { expiresInMs: 60_000, remindAt } } };
      expect(validatePermissions(good, tools)).toBe(good);
    }
    expect(decide({ refund: { ask: { expiresInMs: 60_000, remindAt: 0.5 } } }, 'refund', true)).toEqual({ kind: 'ask', expiresInMs: 60_000, remindAt: 0.5 });
    expect(decide({ refund: { ask: { expiresInMs: 60_000 } } }, 'refund', true)).toEqual({ kind: 'ask', expiresInMs: 60_000 });
    for (const bad of [0, 1, -0.25, 1.5, Number.NaN, '0.5', {}]) {
      expect(refusal({ refund: { ask: { expiresInMs: 60_000, remindAt: bad } } }), String(bad)).toMatch(
        /^permissions\.refund\.ask\.remindAt must be a share of the approval's life between 0 and 1 \(exclusive\), or null for no reminder; got /,
      );
    }
  });
});

describe('name patterns (a family of tools, such as one MCP server’s)', () => {
  const ask = { ask: { expiresInMs: 60_000 } } as const;

  it('a pattern holds every tool it matches, and nothing else', () => {
    const policy = { 'github.*': 'allow' } as const;
    expect(decide(policy, 'github.list_issues', true)).toEqual({ kind: 'allow' });
    expect(decide(policy, 'github.a.b', true)).toEqual({ kind: 'allow' });
    expect(decide(policy, 'githubx.list_issues', true)).toEqual({ kind: 'deny', reason: 'githubx.list_issues is not permitted for this agent' });
    expect(decide(policy, 'gitlab.list_issues', true).kind).toBe('deny');
    expect(decide({ '*_issue': 'allow' }, 'github.create_issue', true)).toEqual({ kind: 'allow' });
    expect(decide({ 'a*b*c': 'allow' }, 'abc', true)).toEqual({ kind: 'allow' });
    expect(decide({ 'a*b*c': 'allow' }, 'ab', true).kind).toBe('deny');
    expect(decide({ 'ab*ba': 'allow' }, 'aba', true).kind).toBe('deny');
  });

  it('an exact name beats any pattern, the more specific pattern beats the less', () => {
    const policy = { '*': 'deny', 'github.*': ask, 'github.list_*': 'allow', 'github.list_secrets': 'deny' } as const;
    expect(decide(policy, 'github.list_issues', true)).toEqual({ kind: 'allow' });
    expect(decide(policy, 'github.list_secrets', true)).toEqual({ kind: 'deny', reason: 'github.list_secrets is denied by policy' });
    expect(decide(policy, 'github.create_issue', true)).toEqual({ kind: 'ask', expiresInMs: 60_000 });
    expect(decide(policy, 'slack.post', true).kind).toBe('deny');
  });

  it('of two equally specific patterns the stricter holds, in either order', () => {
    expect(decide({ 'gh.*': 'allow', '*.rm': 'deny' }, 'gh.rm', true).kind).toBe('deny');
    expect(decide({ '*.rm': 'deny', 'gh.*': 'allow' }, 'gh.rm', true).kind).toBe('deny');
    expect(decide({ 'gh.*': 'allow', '*.rm': ask }, 'gh.rm', true).kind).toBe('ask');
  });

  it('a pattern is accepted though it matches no tool yet; an exact name still must be a tool', () => {
    expect(validatePermissions({ 'github.*': 'allow' }, ['refund'])).toEqual({ 'github.*': 'allow' });
    expect(() => validatePermissions({ 'github.list': 'allow' }, ['refund'])).toThrow(/not one of the tools/);
  });

  it('an open tool set (the Agent SDK’s built-in tools) takes exact names it cannot check', () => {
    expect(validatePermissions({ Bash: 'deny' }, [], { open: true })).toEqual({ Bash: 'deny' });
  });

  it('refuses a key that is no tool name or pattern', () => {
    expect(() => validatePermissions({ 'github/*': 'allow' }, [], { open: true })).toThrow(/letters, digits/);
    expect(() => validatePermissions({ '': 'allow' }, [], { open: true })).toThrow(VigilError);
  });
});
