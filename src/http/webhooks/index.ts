/** One verifier per configured source, built once at startup with its secret resolved. */
import type { SourceConfig } from '../../config/schema.js';
import { resolveLongSecret } from '../../config/secrets.js';
import { githubVerifier } from './github.js';
import { hmacVerifier } from './hmac.js';
import { slackVerifier } from './slack.js';
import { standardWebhooksVerifier } from './standard-webhooks.js';
import { stripeVerifier } from './stripe.js';
import type { WebhookVerifier } from './verifier.js';

export { WebhookRejected, type RejectionReason, type WebhookVerifier } from './verifier.js';

export function createVerifier(name: string, source: SourceConfig, env: NodeJS.ProcessEnv = process.env): WebhookVerifier {
  const secret = resolveLongSecret(source.secret, env, `sources.${name}.secret`);
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

/** A Map, not the config object: a source named "constructor" or "__proto__" must not find Object.prototype. */
export function createVerifiers(sources: Record<string, SourceConfig>, env: NodeJS.ProcessEnv = process.env): Map<string, WebhookVerifier> {
  return new Map(Object.entries(sources).map(([name, source]) => [name, createVerifier(name, source, env)]));
}
