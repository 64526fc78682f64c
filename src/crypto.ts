/**
 * The HMAC, key-derivation and constant-time helpers that Vigil's HTTP
 * service, its dashboard and the credential proxy share. One module, so that
 * every secret comparison is constant-time the same way and every key is
 * derived for one purpose the same way.
 *
 * A secret is put to one use only: approval links, the dashboard's cookie and
 * its CSRF tokens each get a key derived from the configured secret with
 * their own label (HKDF), so what one of them reveals, or lets someone try
 * offline, says nothing about the others or about the secret itself.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The shortest secret Vigil accepts (tokens, link secrets, webhook secrets,
 * the proxy's admin token): 32 characters, what `openssl rand -hex 32` gives
 * twice over. Secrets anyone can try offline (a link reveals an HMAC made with
 * a key derived from one) must be too long to guess.
 */
export const MIN_SECRET_LENGTH = 32;

/** How to make one, for error messages. */
export const MAKE_A_SECRET = 'openssl rand -hex 32';

export function hmacSha256(key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Constant-time: the comparison takes the same time wherever the first
 * wrong byte is, so an attacker cannot find a valid signature byte by byte.
 * Only the length (public: it is the digest size) may end it early.
 */
export function sameBytes(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Two strings compared in constant time whatever their lengths: both are hashed first. */
export function sameSecret(expected: string, candidate: string): boolean {
  return timingSafeEqual(sha256(expected), sha256(candidate));
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** A hex SHA-256 digest as bytes, or null when it is not exactly 64 hex digits. */
export function fromHex(text: string): Buffer | null {
  // Buffer.from(text, 'hex') stops silently at the first bad digit: check first.
  return HEX_SHA256.test(text) ? Buffer.from(text, 'hex') : null;
}

/**
 * A 32-byte key for one purpose, derived from `secret` with HKDF-SHA256 and
 * `purpose` as its info label. Keys for different labels are independent;
 * none of them gives the secret back.
 */
export function deriveKey(secret: string | Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
}
