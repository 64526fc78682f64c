/**
 * What the adapter keeps in the inbox's session (ctx.session, saved with
 * the run's fenced finish, so a run that loses its lease saves nothing):
 * the Agent SDK's session id, its transcript (every entry Claude Code
 * mirrored through `sessionStore`, so a process that never ran the session
 * can resume it), the call waiting for a person, and the latest decisions.
 */
import type { SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import type { DecisionRecord } from '../../store/contract.js';
import type { Usage } from '../../agent/usage.js';

export interface WaitingCall {
  approvalId: string;
  /** The SDK's tool_use id the approval answers. */
  toolUseId: string;
  /** Vigil's name of the tool. */
  tool: string;
  input: Record<string, unknown>;
  inputSha256: string;
  /** What arrived while the call waited: the model hears it when the session resumes. */
  arrived: string[];
}

export interface SdkSession {
  kind: 'vigil.claude-agent-sdk';
  sessionId: string | null;
  /** The transcript, by subpath ('' is the main transcript; others are subagents'). */
  transcript: Record<string, SessionStoreEntry[]>;
  waiting: WaitingCall | null;
  /** The SDK's cumulative usage when the last run ended: a resume starts from it. */
  usageSoFar: Usage | null;
  decisions: DecisionRecord[];
}

export function toSession(stored: unknown): SdkSession {
  if (typeof stored === 'object' && stored !== null && (stored as { kind?: unknown }).kind === 'vigil.claude-agent-sdk') return stored as SdkSession;
  return { kind: 'vigil.claude-agent-sdk', sessionId: null, transcript: {}, waiting: null, usageSoFar: null, decisions: [] };
}

/**
 * The SDK's `sessionStore`, backed by the session object the run loaded and
 * will save: Claude Code mirrors each transcript line here as it writes it,
 * and a resume loads it from here into a fresh folder. One session per
 * inbox, so the key's project (derived from the working directory) does
 * not matter; entries with a uuid are kept once (the SDK may retry a batch).
 */
export function transcriptStore(session: SdkSession): SessionStore {
  return {
    append(key, entries) {
      if (session.sessionId !== key.sessionId) {
        session.sessionId = key.sessionId;
        session.transcript = {};
      }
      const lines = (session.transcript[key.subpath ?? ''] ??= []);
      const seen = new Set(lines.map((entry) => entry.uuid).filter((uuid) => uuid !== undefined));
      for (const entry of entries) {
        if (entry.uuid !== undefined && seen.has(entry.uuid)) continue;
        if (entry.uuid !== undefined) seen.add(entry.uuid);
        lines.push(structuredClone(entry));
      }
      return Promise.resolve();
    },
    load(key) {
      if (key.sessionId !== session.sessionId) return Promise.resolve(null);
      return Promise.resolve(session.transcript[key.subpath ?? ''] ?? null);
    },
    listSubkeys(key) {
      if (key.sessionId !== session.sessionId) return Promise.resolve([]);
      return Promise.resolve(Object.keys(session.transcript).filter((subpath) => subpath !== ''));
    },
  };
}
