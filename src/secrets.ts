/**
 * The process-wide registry of secrets (API token, database token and password, URL passwords) and the redactor that
 * every string leaving the process passes through: log lines, error messages, CLI output, dead letters, /metrics.
 * Secrets are registered where they enter (config loading, the HTTP client, CLI flags), so text is cleaned whatever
 * its origin — including a server that repeats the token back, or a token pasted into the wrong config field.
 */

/**
 * Shorter values are not registered: redacting every `ab` or `1234` would mangle every line, and a real token or
 * password is longer. (A shorter password is not protected by redaction; the config refuses nothing for it.)
 */
export const MIN_SECRET_LENGTH = 6;
const MASK = '***';

const secrets = new Set<string>();
let pattern: RegExp | undefined;

/** Registers `value` and the forms it takes in text: URI- and form-encoded, and escaped inside a JSON string. */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
  const forms = [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ s: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
  ];
  let added = false;
  for (const form of forms) {
    if (!secrets.has(form)) {
      secrets.add(form);
      added = true;
    }
  }
  if (added) pattern = undefined;
}

/** Registers the password of a URL's userinfo (`https://user:password@host`), if it has one. */
export function registerUrlSecrets(url: string | undefined): void {
  if (typeof url !== 'string' || !URL.canParse(url)) return;
  const { password } = new URL(url);
  if (password) {
    registerSecret(password);
    registerSecret(decodeURIComponent(password));
  }
}

/** Every registered secret in `text` replaced by `***`. */
export function redactSecrets(text: string): string {
  if (secrets.size === 0) return text;
  pattern ??= new RegExp(
    [...secrets]
      .sort((a, b) => b.length - a.length) // the longest form first: no half-redacted remainder
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  return text.replace(pattern, MASK);
}

/** A JSON-able value with every string redacted (error bodies, parsed responses kept on errors). */
export function redactValue<T>(value: T): T {
  if (secrets.size === 0 || value === undefined) return value;
  if (typeof value === 'string') return redactSecrets(value) as T;
  try {
    return JSON.parse(redactSecrets(JSON.stringify(value))) as T;
  } catch {
    return redactSecrets(String(value)) as T;
  }
}

/** A URL without its `user:password@` part, for anything that describes a request. */
export function withoutUserinfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1');
}

/**
 * Registers the secrets of a configuration as soon as it is read, before it is validated — a config that fails
 * validation is reported with its values quoted. Walks the raw object: the API and sink tokens and passwords, and the
 * userinfo of every URL in it.
 */
export function registerConfigSecrets(raw: unknown): void {
  const visit = (node: unknown, key: string): void => {
    if (typeof node === 'string') {
      if (/^(token|password)$/i.test(key)) registerSecret(node);
      if (node.includes('@')) registerUrlSecrets(node);
    } else if (Array.isArray(node)) {
      node.forEach((item) => visit(item, key));
    } else if (typeof node === 'object' && node !== null) {
      for (const [k, v] of Object.entries(node)) visit(v, k);
    }
  };
  visit(raw, '');
}

/** For tests: forget every secret. */
export function clearSecrets(): void {
  secrets.clear();
  pattern = undefined;
}

/**
 * A secret as it comes from the environment or a file, without the line end that `echo`, an editor or
 * `kubectl create secret --from-file` leaves after it: sent as-is, the token cannot go into a header, and a password
 * with its newline is a wrong password (counted toward the service's ban).
 */
export function withoutLineEnds(value: string): string {
  return value.replace(/[\r\n]+$/, '');
}

/** A control character (a line break, a tab, NUL, DEL) is no part of any token or password. */
export function hasControlCharacter(value: string): boolean {
  return /[\u0000-\u001f\u007f]/.test(value);
}

/**
 * Whether `value` travels unchanged as an HTTP header value: visible ASCII, with spaces only between visible
 * characters (HTTP trims them at the ends). undici refuses a line break, a control or non-ASCII character before
 * sending, and its pool stops answering after enough refusals: a token is checked where it is obtained.
 */
export function isHeaderSafe(value: string): boolean {
  return /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value);
}
