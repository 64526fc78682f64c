/**
 * A GitHub issue-triage bot. When an issue is opened it labels it (bug,
 * question, enhancement, from words in the title and body), comments once
 * to say so, and tells the maintainer what it did.
 *
 * It holds no GitHub token: every call goes through `ctx.fetch('github/…')`,
 * the credential proxy (`vigil proxy --config proxy.json`), which adds the
 * token and allows only the methods and paths proxy.json names. An issue
 * that talks the bot into calling somewhere else gets a 403, not a token.
 *
 * Exactly once, where GitHub offers no idempotency key: a run that is
 * retried (the comment was created but its answer never arrived, or the
 * worker died in between) looks for its own marker, the webhook's delivery
 * id in an HTML comment, before commenting again. Labels need no such care:
 * adding a label twice leaves one.
 */
import { defineAgent, TerminalError, type AgentContext, type ClaimedEvent } from 'vigil-agents';

/** First match wins, per label; an issue may get several. */
const RULES: { label: string; pattern: RegExp }[] = [
  { label: 'bug', pattern: /\b(crash(es|ed)?|error|exception|broken|fails?|failing|bug|regression)\b/i },
  { label: 'question', pattern: /\b(how (do|can|should) i|is it possible|question)\b|\?\s*$/i },
  { label: 'enhancement', pattern: /\b(feature|support for|would be (nice|great)|please add|proposal)\b/i },
];

interface OpenedIssue {
  repo: string;
  number: number;
  title: string;
  body: string;
}

export default defineAgent({
  name: 'github-triage',
  async run(ctx) {
    const reports: string[] = [];
    for (const event of ctx.events) {
      const issue = event.source === 'github' ? openedIssue(event.payload) : null;
      // Pings, comments, closed issues, pull requests: nothing to triage, nothing to say.
      if (issue !== null) reports.push(await triage(ctx, event, issue));
    }
    return reports.length === 0 ? { nothing: true } : { messages: reports };
  },
});

async function triage(ctx: AgentContext, event: ClaimedEvent, issue: OpenedIssue): Promise<string> {
  const text = `${issue.title}\n${issue.body}`;
  const labels = RULES.filter((rule) => rule.pattern.test(text)).map((rule) => rule.label);
  const path = `github/repos/${issue.repo}/issues/${issue.number}`;

  if (labels.length > 0) await github(ctx, 'POST', `${path}/labels`, { labels });

  const marker = `<!-- vigil-triage delivery=${event.sourceId} -->`;
  const comments = (await github(ctx, 'GET', `${path}/comments?per_page=100`)) as { body?: string }[];
  if (!comments.some((comment) => comment.body?.includes(marker) === true)) {
    const said = labels.length === 0 ? 'I could not tell what kind of issue this is; a maintainer will label it.' : `I labelled it **${labels.join('**, **')}**.`;
    await github(ctx, 'POST', `${path}/comments`, { body: `Thanks for opening this! ${said}\n\n${marker}` });
  }
  return `Triaged ${issue.repo}#${issue.number} "${issue.title}": ${labels.length === 0 ? 'no label' : labels.join(', ')}.`;
}

/** One GitHub API call through the credential proxy; the JSON answer, or an error saying whether a retry can help. */
async function github(ctx: AgentContext, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const response = await ctx.fetch(path, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'vigil-github-triage',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: ctx.signal,
  });
  const text = await response.text();
  if (response.ok) return text === '' ? null : (JSON.parse(text) as unknown);
  const what = `${method} ${path}: ${response.status} ${text.slice(0, 300)}`;
  // Rate limits and server errors pass: the run fails and Vigil retries it with backoff.
  // Anything else (a refused path, a revoked credential, no such issue) will not pass by waiting.
  if (response.status === 429 || response.status >= 500) throw new Error(what);
  throw new TerminalError(what);
}

/** The issue of an `issues` webhook with action "opened", or null. */
function openedIssue(payload: unknown): OpenedIssue | null {
  const p = payload as { action?: unknown; issue?: { number?: unknown; title?: unknown; body?: unknown; pull_request?: unknown }; repository?: { full_name?: unknown } };
  if (p?.action !== 'opened' || typeof p.issue !== 'object' || p.issue === null || p.issue.pull_request !== undefined) return null;
  const { number, title, body } = p.issue;
  const repo = p.repository?.full_name;
  if (typeof number !== 'number' || typeof title !== 'string' || typeof repo !== 'string' || !/^[\w.-]+\/[\w.-]+$/.test(repo)) return null;
  return { repo, number, title, body: typeof body === 'string' ? body : '' };
}
