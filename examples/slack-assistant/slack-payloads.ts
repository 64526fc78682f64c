/**
 * What Slack sends, read defensively (payloads come from outside; the
 * signature says who sent them, not that every field is there):
 * - a direct message to the bot, from the Events API (`message.im`);
 * - a slash command, a form Slack posts for `/quiet …` (Vigil stores its
 *   fields as an object).
 */

export interface DirectMessage {
  /** The DM conversation (D…): where the answer goes. */
  channel: string;
  user: string;
  text: string;
}

export interface SlashCommand {
  command: string;
  text: string;
  user: string;
}

/**
 * A person's message in a DM with the bot, or null for anything else. The
 * bot's own posts come back as `message.im` events too (with a `bot_id`):
 * answering them would make the bot talk to itself forever. Edits, deletes
 * and joins carry a `subtype`: nothing to answer.
 */
export function directMessage(payload: unknown): DirectMessage | null {
  const event = field(payload, 'event');
  if (field(payload, 'type') !== 'event_callback' || field(event, 'type') !== 'message' || field(event, 'channel_type') !== 'im') return null;
  if (field(event, 'bot_id') !== undefined || field(event, 'subtype') !== undefined) return null;
  const channel = field(event, 'channel');
  const user = field(event, 'user');
  const text = field(event, 'text');
  if (typeof channel !== 'string' || typeof user !== 'string' || typeof text !== 'string') return null;
  return { channel, user, text };
}

export function slashCommand(payload: unknown): SlashCommand | null {
  const command = field(payload, 'command');
  const user = field(payload, 'user_id');
  if (typeof command !== 'string' || typeof user !== 'string') return null;
  const text = field(payload, 'text');
  return { command, user, text: typeof text === 'string' ? text.trim() : '' };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}
