/**
 * Webhook secrets per inbox. A source configured with
 * `"secret": { "derive": "env:MASTER" }` gives every inbox its own secret,
 * derived from the master, the source name and the inbox id (HKDF-SHA256,
 * as hex). A user who sets up their own webhook gets the secret for their
 * inbox alone (`vigil secret <inbox> <source>`): a delivery signed with it
 * is refused at every other inbox, so knowing it grants writing into that
 * one inbox, and a captured delivery cannot be replayed into anyone else's.
 * The master never leaves the service; the source name in the label keeps
 * one master from giving two sources the same secrets.
 *
 * A fixed secret grants writing into every inbox of the source: right for a
 * single tenant, and for routed deliveries (POST /hooks/<source>), whose
 * inbox is known only from the body after the signature is checked.
 */
import { deriveKey } from '../../crypto.js';

export function perInboxSecret(master: string, sourceName: string, inboxId: string): string {
  return deriveKey(master, `vigil webhook secret\u0000${sourceName}\u0000${inboxId}`).toString('hex');
}
