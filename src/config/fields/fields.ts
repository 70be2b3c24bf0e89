import { isIP } from 'node:net';
import { validate as isCronExpression } from 'node-cron';
import { z } from 'zod';
import { hasControlCharacter, isHeaderSafe } from '../../secrets.js';

/**
 * Field types shared by several config sections, each refusing at `--check` what would only fail later (or never
 * visibly): a `file:` or `ftp:` base URL, a listener address no socket can bind.
 */

/**
 * An http(s) URL: every API and sink speaks HTTP, so any other scheme is a typo or an attempt to read elsewhere. What
 * is wrong is said with what the value should look like (zod's own words are `Invalid url`).
 */
export const httpUrl = z
  .string()
  .superRefine((text, ctx) => {
    const problem = httpUrlProblem(text);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ format: 'uri' });

/** A URL as an error may show it: without a `user:password@` part. */
const shown = (text: string) => text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@\s]*@/i, '$1');

function httpUrlProblem(value: string): string | undefined {
  const text = shown(value);
  if (text.trim() === '' || /\s/.test(text)) return `"${text}" is not a URL (e.g. https://api.example.com)`;
  if (!text.includes('://') && !/^file:/i.test(text)) {
    const host = text.replace(/^\/+/, '');
    return `"${text}" has no scheme: write https://${host} (http://${host} for a server without TLS)`;
  }
  if (!URL.canParse(text)) return `"${text}" is not a URL (e.g. https://api.example.com)`;
  if (!/^https?:$/.test(new URL(text).protocol)) return 'must be an http:// or https:// URL';
  return undefined;
}

/**
 * The API's base URL: scheme, host and port (a proxy's path prefix allowed), without the `/app` every API path
 * starts with: the collector adds `/app/metrics/v1/…` itself, so `…/app` would be called as `…/app/app/…` (404).
 */
export const apiBaseUrl = httpUrl.superRefine((text, ctx) => {
  if (!URL.canParse(text)) return;
  const url = new URL(text);
  const at = url.pathname.search(/(^|\/)app(\/|$)/);
  if (at < 0) return;
  const root = `${url.origin}${url.pathname.slice(0, at)}`;
  ctx.addIssue({
    code: 'custom',
    message:
      `"${shown(text)}" has /app in its path, which the collector adds to every path itself (…/app/app/metrics/v1/ ` +
      `answers 404): write ${root}`,
  });
});

/** RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens. */
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** A listener address: an IPv4/IPv6 address (without brackets) or a host name. */
export const listenHost = z
  .string()
  .refine(
    (text) => isIP(text) !== 0 || HOSTNAME.test(text),
    'must be an IP address (e.g. 127.0.0.1, 0.0.0.0, ::) or a host name',
  );

/** A job's live schedule: validated here, once, so `--check` refuses it and the daemon can trust it. */
export const cronSchedule = z
  .string()
  .min(1)
  .superRefine((expression, ctx) => {
    if (!isCronExpression(expression))
      ctx.addIssue({ code: 'custom', message: `"${expression}" is not a cron expression` });
  })
  .describe('node-cron expression of the live schedule, in UTC whatever TZ says (with seconds field optional)');

/**
 * A password or a database token: one line, as the environment and secret files give it once their line end is cut
 * (env.ts). A control character inside it would be sent as part of it: refused, naming the field, never the value.
 */
export const secretText = (minLength = 1) =>
  z
    .string()
    .min(minLength)
    .refine(
      (text) => !hasControlCharacter(text),
      'holds a control character (a line break inside it?): check the secret',
    );

/** The API token: it travels in a header, which carries visible ASCII only (no space, line break or accent). */
export const apiToken = z
  .string()
  .min(1)
  .refine(
    (text) => isHeaderSafe(text),
    'holds a character no HTTP header can carry (a line break, a control or non-ASCII character): check the secret',
  );
