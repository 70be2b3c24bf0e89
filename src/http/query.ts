/** Query strings with repeated parameters (`metric=a&metric=b`), in the order given. */
export type QueryValue = string | number | boolean | undefined | null | ReadonlyArray<string | number>;
export type Query = Record<string, QueryValue>;

export function toSearchParams(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  return params;
}

/** Replaces every occurrence of the secret (raw or URL-encoded) so that it can never reach a log or an error. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let out = text.split(secret).join('***');
  const encoded = encodeURIComponent(secret);
  if (encoded !== secret) out = out.split(encoded).join('***');
  return out;
}

/** The account a call names: given, or its single `account` query parameter. */
export function accountOf(call: { account?: string | undefined; query?: Query | undefined }): string | undefined {
  if (call.account !== undefined) return call.account;
  const value = call.query?.account;
  return typeof value === 'string' ? value : undefined;
}
