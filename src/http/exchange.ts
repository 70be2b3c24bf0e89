/**
 * The small parts of one exchange with undici that HttpClient.send composes: headers flattened, JSON parsed, an
 * error's code and cause made safe to log, an excerpt of a body, and a call that settles when its signal aborts.
 */
import { whenAborted } from '../abort.js';
import { redactSecrets } from '../secrets.js';
import { redact } from './query.js';

export function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  if (typeof e.code === 'string') return e.code;
  if (e.cause && typeof e.cause.code === 'string') return e.cause.code;
  return undefined;
}

/** Keeps the cause's message for debugging, minus any trace of the token. */
export function sanitizeCause(err: unknown, token: string): Error {
  const message = err instanceof Error ? err.message : String(err);
  return new Error(redactSecrets(redact(message, token)));
}

/**
 * `work`, or the signal's reason as soon as it aborts, whichever comes first: a pass settles even when the HTTP layer
 * does not (undici's pool stops settling calls after it refused enough arguments).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = whenAborted(signal, () => reject(signal.reason));
    work.then(resolve, reject).finally(stopWaiting);
  });
}

export function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
