/**
 * A local stand-in for the parts of GitHub's REST API the triage example
 * uses, answering as GitHub does: labels added to an issue (a set), its
 * comments listed and created (201), 401 `Bad credentials` without the
 * expected token, 404 for anything else. `loseNextCommentAnswer()` creates
 * the next comment and then answers 502, as a connection that drops after
 * GitHub did the work would look to the caller.
 */
import { listenFake, oneLine, parseJson, sendJson, type FakeOptions } from './listen.js';

export interface GitHubRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeGitHub {
  readonly url: string;
  readonly requests: GitHubRequest[];
  labels(repo: string, issue: number): string[];
  comments(repo: string, issue: number): string[];
  loseNextCommentAnswer(): void;
  close(): Promise<void>;
}

/** What `npm run fakes -- github` serves, for its banner. */
export const GITHUB_ROUTES = ['POST /repos/{owner}/{repo}/issues/{n}/labels', 'GET /repos/{owner}/{repo}/issues/{n}/comments', 'POST /repos/{owner}/{repo}/issues/{n}/comments'];

export async function startFakeGitHub(token: string, options: FakeOptions = {}): Promise<FakeGitHub> {
  const requests: GitHubRequest[] = [];
  const labels = new Map<string, Set<string>>();
  const comments = new Map<string, { id: number; body: string }[]>();
  let loseNext = false;
  let nextId = 1;

  const server = await listenFake(options, ({ method, path, headers, raw }, res, note) => {
    const body = parseJson(raw) ?? null;
    requests.push({ method, path, authorization: headers.authorization, body });
    const send = (status: number, value: unknown): void => sendJson(res, status, value);
    if (headers.authorization !== `Bearer ${token}`) return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    const match = /^\/repos\/([\w.-]+\/[\w.-]+)\/issues\/(\d+)\/(labels|comments)$/.exec(path);
    if (match === null) return send(404, { message: 'Not Found' });
    const key = `${match[1]}#${match[2]}`;
    if (match[3] === 'labels' && method === 'POST') {
      const set = labels.get(key) ?? new Set<string>();
      for (const label of (body as { labels: string[] }).labels) set.add(label);
      labels.set(key, set);
      note(`labels of ${key}: ${[...set].join(', ')}`);
      return send(200, [...set].map((name) => ({ name })));
    }
    if (match[3] === 'comments' && method === 'GET') return send(200, comments.get(key) ?? []);
    if (match[3] === 'comments' && method === 'POST') {
      const list = comments.get(key) ?? [];
      const comment = { id: nextId++, body: (body as { body: string }).body };
      list.push(comment);
      comments.set(key, list);
      note(`comment on ${key}: ${oneLine(comment.body)}`);
      if (loseNext) {
        loseNext = false;
        return send(502, { message: 'Server Error' });
      }
      return send(201, comment);
    }
    return send(404, { message: 'Not Found' });
  });
  return {
    url: server.url,
    requests,
    labels: (repo, issue) => [...(labels.get(`${repo}#${issue}`) ?? [])],
    comments: (repo, issue) => (comments.get(`${repo}#${issue}`) ?? []).map((c) => c.body),
    loseNextCommentAnswer: () => {
      loseNext = true;
    },
    close: server.close,
  };
}
