/**
 * One webhook source per configured name, built once at startup: a verifier
 * for each delivery, made with the source's fixed secret, or with the
 * secret derived for the delivery's inbox (source-secret.ts). Secrets
 * arrive read (the config's resolve-config.ts).
 *
 * A new provider is its verifier module here, a case in SourceSpec and
 * verifierFor below, and its entry in the config's schema
 * (src/config/schema.ts).
 */
import { githubVerifier } from './github.js';
import { hmacVerifier } from './hmac.js';
import type { Routing } from './route-inbox.js';
import { slackVerifier } from './slack.js';
import { perInboxSecret } from './source-secret.js';
import { standardWebhooksVerifier } from './standard-webhooks.js';
import { stripeVerifier } from './stripe.js';
import type { WebhookVerifier } from './verifier.js';

export { WebhookRejected, type RejectionReason, type WebhookVerifier } from './verifier.js';

/** A fixed secret, or a master to derive one per inbox from (senders who choose the secret: GitHub, generic HMAC). */
export type SourceSecret = string | { derive: string };

/** One configured source, its secret read. */
export type SourceSpec = { inbox?: Routing | undefined } & (
  | { type: 'github'; secret: SourceSecret }
  | { type: 'stripe'; secret: string; toleranceSeconds: number }
  | { type: 'standard-webhooks'; secret: string; toleranceSeconds: number }
  | { type: 'slack'; secret: string; toleranceSeconds: number }
  | { type: 'hmac'; secret: SourceSecret; signatureHeader: string; keyHeader: string }
);

export interface WebhookSource {
  readonly name: string;
  readonly config: SourceSpec;
  /** 'fixed': one secret for every inbox; 'per-inbox': each inbox's own, derived from a master. */
  readonly secretKind: 'fixed' | 'per-inbox';
  /**
   * The verifier for a delivery to `inboxId`. A routed delivery (POST
   * /hooks/<source>) has no inbox until it is verified: `null`, which only a
   * fixed secret can verify (the config refuses routing a per-inbox source).
   */
  verifier(inboxId: string | null): WebhookVerifier;
}

function verifierFor(source: SourceSpec, secret: string): WebhookVerifier {
  switch (source.type) {
    case 'github':
      return githubVerifier(secret);
    case 'stripe':
      return stripeVerifier(secret, source.toleranceSeconds);
    case 'standard-webhooks':
      return standardWebhooksVerifier(secret, source.toleranceSeconds);
    case 'slack':
      return slackVerifier(secret, source.toleranceSeconds);
    case 'hmac':
      return hmacVerifier(secret, source);
  }
}

export function createSource(name: string, source: SourceSpec): WebhookSource {
  if (typeof source.secret === 'string') {
    const verifier = verifierFor(source, source.secret);
    return { name, config: source, secretKind: 'fixed', verifier: () => verifier };
  }
  const master = source.secret.derive;
  return {
    name,
    config: source,
    secretKind: 'per-inbox',
    verifier(inboxId) {
      if (inboxId === null) throw new TypeError(`source ${name} has a secret per inbox: a delivery to it names its inbox in the path`);
      return verifierFor(source, perInboxSecret(master, name, inboxId));
    },
  };
}

/** A Map, not the config object: a source named "constructor" or "__proto__" must not find Object.prototype. */
export function createSources(sources: Record<string, SourceSpec>): Map<string, WebhookSource> {
  return new Map(Object.entries(sources).map(([name, source]) => [name, createSource(name, source)]));
}
