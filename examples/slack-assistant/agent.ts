/**
 * A two-way Slack assistant for every person in a workspace, behind one
 * Slack app. Vigil routes each delivery to that person's inbox
 * (`slack-<their user id>`), so each person gets their own runs, memory,
 * settings and pacing; the Slack channel posts each inbox's messages as the
 * bot to `contacts.slack`, that person's DM.
 *
 * - A DM to the bot is answered in the same DM. The first one also records
 *   where that is (`contacts.slack` = the DM's channel id) and turns on a
 *   short debounce, so three lines typed in a row are one run, one answer.
 * - "remind me in 10m to stretch" sets a timer; the reminder is a paced
 *   (non-urgent) message, so it waits out the person's quiet hours.
 * - `/quiet 22:00-07:00 Europe/Berlin` sets those quiet hours (`/quiet off`
 *   removes them, `/quiet` shows them).
 *
 * Answers to what the person just asked are urgent: they go at once, even in
 * quiet hours (the person is awake: they just wrote). Only what the bot
 * says on its own, the reminders, is held.
 *
 * No model: the answers are rules, so this runs with no API key. For real
 * answers, hand the DMs to `claudeAgent` or `toolAgent`; the routing,
 * contacts and pacing stay as they are.
 */
import { defineAgent, type AgentContext, type ClaimedEvent, type OutboxMessage } from 'vigil-agents';
import { directMessage, slashCommand, type DirectMessage } from './slack-payloads.js';

/** A burst of lines a person types in a row becomes one run (README, "Many users"). */
export const DEBOUNCE_MS = 1_500;

export default defineAgent({
  name: 'slack-assistant',
  async run(ctx) {
    const messages: OutboxMessage[] = [];
    const dms: { event: ClaimedEvent; dm: DirectMessage }[] = [];
    for (const event of ctx.events) {
      if (event.source === 'slack') {
        // The bot's own posts come back as events too: they are never answered (directMessage says null).
        const dm = directMessage(event.payload);
        if (dm !== null) dms.push({ event, dm });
      } else if (event.source === 'slack-commands') {
        const reply = await command(ctx, event.payload);
        if (reply !== null) messages.push({ body: reply, urgent: true });
      } else if (event.source === 'timer') {
        const reminder = (event.payload as { reminder?: unknown } | null)?.reminder;
        // Not urgent: paced by the person's settings, held in their quiet hours.
        if (typeof reminder === 'string') messages.push(`Reminder: ${reminder}`);
      }
    }
    if (dms.length > 0) messages.push({ body: await answer(ctx, dms), urgent: true });
    return messages.length === 0 ? { nothing: true } : { messages };
  },
});

/** One answer to every DM of this run (a burst is answered once). */
async function answer(ctx: AgentContext, dms: { event: ClaimedEvent; dm: DirectMessage }[]): Promise<string> {
  const lines: string[] = [];
  const firstTime = (await ctx.memory.get('greeted')) !== true;
  // Replies go where the person wrote: the DM this run's last message came from.
  const channel = dms[dms.length - 1]!.dm.channel;
  const settings = await ctx.settings;
  const patch: Record<string, unknown> = {};
  if (settings.contacts?.slack !== channel) patch.contacts = { slack: channel };
  if (firstTime) {
    patch.wake = { debounceMs: DEBOUNCE_MS };
    await ctx.memory.set('greeted', true);
    lines.push('Hi! I answer here. Try "remind me in 10m to stretch", or set your quiet hours with /quiet 22:00-07:00 Europe/Berlin.');
  }
  // Before the run's messages are queued, so this very answer already finds its address.
  if (Object.keys(patch).length > 0) await ctx.updateSettings(patch);

  const said: string[] = [];
  for (const { event, dm } of dms) {
    const reminder = parseReminder(dm.text);
    if (reminder === null) {
      said.push(dm.text);
      continue;
    }
    // Keyed by the Slack event: a retried run replaces the timer instead of adding a second.
    await ctx.addTimer({ id: `remind-${event.sourceId}`, due: ctx.now + reminder.ms, payload: { reminder: reminder.what } });
    lines.push(`OK: in ${reminder.spoken} I'll remind you to ${reminder.what}.`);
  }
  if (said.length === 1) lines.push(`You said: "${said[0]}".`);
  if (said.length > 1) lines.push(`You said ${said.length} things: ${said.map((text) => `"${text}"`).join(' / ')}.`);
  return lines.join('\n');
}

/** A slash command's answer, or null for a form that is not one. */
async function command(ctx: AgentContext, payload: unknown): Promise<string | null> {
  const slash = slashCommand(payload);
  if (slash === null) return null;
  // Someone who has never written to the bot: Slack delivers a post to a user id into the bot's DM with them.
  if ((await ctx.settings).contacts?.slack === undefined) await ctx.updateSettings({ contacts: { slack: slash.user } });
  if (slash.command !== '/quiet') return `I only know /quiet, not ${slash.command}.`;
  return quiet(ctx, slash.text);
}

async function quiet(ctx: AgentContext, text: string): Promise<string> {
  if (text === '') {
    const hours = (await ctx.settings).outbox?.quietHours;
    return hours === undefined ? 'You have no quiet hours. Set them with /quiet 22:00-07:00 Europe/Berlin.' : `Your quiet hours are ${hours.from}-${hours.to} ${hours.timeZone}.`;
  }
  if (/^off$/i.test(text)) {
    await ctx.updateSettings({ outbox: { quietHours: null } });
    return 'Quiet hours off: reminders come at any time.';
  }
  const match = /^(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s+(\S+)$/.exec(text);
  if (match === null) return 'Try /quiet 22:00-07:00 Europe/Berlin, /quiet off, or /quiet to see yours.';
  const [from, to, timeZone] = [pad(match[1]!), pad(match[2]!), match[3]!];
  try {
    await ctx.updateSettings({ outbox: { quietHours: { from, to, timeZone } } });
  } catch (error) {
    // Vigil checks the times and the zone and names what it refused: say it back, change nothing.
    // (By code, not instanceof: this module may hold its own copy of Vigil's classes.)
    if ((error as { code?: unknown }).code === 'invalid_settings') return `That did not work: ${(error as Error).message}.`;
    throw error;
  }
  return `Quiet hours set: ${from}-${to} ${timeZone}. Reminders wait until they end; my answers to you still come at once.`;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };

/** "remind me in 10m to stretch" → in 10 minutes, "stretch". */
function parseReminder(text: string): { ms: number; spoken: string; what: string } | null {
  const match = /^remind me in (\d{1,4}) ?(s|sec|seconds?|m|min|minutes?|h|hours?) to (.+)$/i.exec(text.trim());
  if (match === null) return null;
  const unit = match[2]!.toLowerCase()[0]!;
  return { ms: Number(match[1]) * UNITS[unit]!, spoken: `${match[1]}${unit}`, what: match[3]! };
}

/** "7:00" → "07:00": Slack users type either. */
function pad(time: string): string {
  return time.padStart(5, '0');
}
