/**
 * A plain Vigil agent: no model, no API key. Vigil calls `run` when events
 * arrive for one inbox (one inbox per user), with the new events in
 * `ctx.events`; whatever `run` returns is saved together with marking those
 * events done, so a crash never loses a reply or sends it twice.
 *
 * Try it: `npm test`, then `npx vigil serve` (or `npx vigil dev`, which
 * reloads this file when you save it) and follow README.md.
 */
import { defineAgent, type AgentMemory, type ClaimedEvent } from 'vigil-agents';

export default defineAgent({
  name: 'plain-agent',

  async run(ctx) {
    // ctx.events: what arrived since the last run, oldest first. Each has
    //   source     where it came from: 'chat' (POST /inboxes/<inbox>/messages),
    //              a webhook source named in vigil.json ('github'), 'timer' or 'approval'
    //   sourceId   its key within the source (a webhook's delivery id): an event
    //              delivered twice is stored once, so this run never sees a repeat
    //   payload    the JSON body
    //   attempts   1 the first time; more when an earlier run failed and this is a retry
    const replies: string[] = [];
    for (const event of ctx.events) {
      const reply = await answer(event, ctx.memory);
      if (reply !== null) replies.push(reply);
    }

    // A run ends one of two ways here: messages go out (through the outbox,
    // to the channels in vigil.json), or nothing does. A run that has
    // nothing new to say must say nothing: return { nothing: true }.
    if (replies.length === 0) return { nothing: true };
    return { messages: replies };
  },
});

/** The reply to one event, or null for none. */
async function answer(event: ClaimedEvent, memory: AgentMemory): Promise<string | null> {
  if (event.source === 'chat') {
    const said = text(event.payload, 'text') ?? '';
    // ctx.memory is per inbox and saved with this run's result: if the run
    // fails, the count is not bumped, and the retry counts the message once.
    const count = Number((await memory.get('messages')) ?? 0) + 1;
    await memory.set('messages', count);
    return `You said: "${said}" (message ${count} from you).`;
  }
  if (event.source === 'github') {
    const action = text(event.payload, 'action') ?? 'event';
    const title = text(event.payload, 'issue', 'title') ?? text(event.payload, 'pull_request', 'title');
    return title === undefined ? `GitHub: ${action} (delivery ${event.sourceId}).` : `GitHub: ${action} "${title}" (delivery ${event.sourceId}).`;
  }
  // Timers and approval answers would arrive here too; this agent has none.
  return null;
}

/** The string at `path` in a JSON payload, or undefined: payloads come from outside, so nothing is assumed. */
function text(value: unknown, ...path: string[]): string | undefined {
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}
