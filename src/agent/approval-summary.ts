/**
 * What an approval asks, in words people read: the one-line summary a run
 * signs into its one-tap link and the confirm page shows. Here, not in the
 * HTTP layer, because the runtime makes the link's data when a run asks.
 */

export interface ApprovalLink {
  inboxId: string;
  approvalId: string;
  expiresAt: number;
  /**
   * What is asked, shown on the confirm page (at most 200 characters; see
   * describeAction). Optional: without it the page names the approval id.
   */
  summary?: string;
}

/** Long enough to say what is asked, short enough for a link in a chat message. */
export const MAX_SUMMARY_CHARS = 200;

/**
 * The summary as it travels: cut to MAX_SUMMARY_CHARS whole characters, and
 * lone surrogates replaced as a URL would replace them, so the text signed
 * is exactly the text that comes back in the query string.
 */
export function normalSummary(summary: string | undefined): string | undefined {
  if (summary === undefined || summary === '') return undefined;
  const chars = Array.from(Buffer.from(summary, 'utf8').toString('utf8'));
  return chars.length <= MAX_SUMMARY_CHARS ? chars.join('') : chars.slice(0, MAX_SUMMARY_CHARS - 1).join('') + '…';
}

/**
 * A one-line description of an approval's action for people: a string as
 * is, else the first of `summary`, `description`, `title`, `text` that is a
 * string, else compact JSON. Untrusted text: escape it wherever it is shown.
 */
export function describeAction(action: unknown): string {
  let text: string | undefined;
  if (typeof action === 'string') text = action;
  else if (typeof action === 'object' && action !== null && !Array.isArray(action)) {
    const record = action as Record<string, unknown>;
    for (const name of ['summary', 'description', 'title', 'text']) {
      const value = record[name];
      if (typeof value === 'string' && value !== '') {
        text = value;
        break;
      }
    }
  }
  text ??= JSON.stringify(action) ?? '';
  return normalSummary(text) ?? '';
}
