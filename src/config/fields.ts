import { isIP } from 'node:net';
import { validate as isCronExpression } from 'node-cron';
import { z } from 'zod';

/**
 * Field types shared by several config sections, each refusing at `--check` what would only fail later (or never
 * visibly): a `file:` or `ftp:` base URL, a listener address no socket can bind.
 */

/** An http(s) URL: every API and sink speaks HTTP, so any other scheme is a typo or an attempt to read elsewhere. */
export const httpUrl = z
  .string()
  .url()
  // zod runs refinements after a failed .url() check too: only a parsable URL is asked for its scheme.
  .refine(
    (text) => !URL.canParse(text) || /^https?:$/.test(new URL(text).protocol),
    'must be an http:// or https:// URL',
  );

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
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `"${expression}" is not a cron expression` });
  })
  .describe('node-cron expression of the live schedule, in UTC whatever TZ says (with seconds field optional)');
