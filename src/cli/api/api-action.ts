import type { ZodType } from 'zod';
import { HttpClient } from '../../http/client.js';
import { APIS, type ApiName } from '../../spec/apis.js';
import { loginStateDir, resolveConnection } from '../common/connection.js';
import type { ConnectionOptions } from '../common/dvr-args.js';

// What `api` does, loaded only when it runs (api.ts defines the command).

/**
 * Any JSON body, as is: the one method of a schema the client calls. Not `z.unknown()`, so that `api` does not load
 * zod (a fifth of its start-up over bare node) before its request.
 */
const ANY_BODY = { safeParse: (data: unknown) => ({ success: true, data }) } as unknown as ZodType<unknown>;

export interface ApiOptions extends ConnectionOptions {
  /** `-q key=value`, repeated. */
  query?: string[];
}

export async function apiAction(api: ApiName, path: string, o: ApiOptions): Promise<void> {
  const { baseUrl, token } = resolveConnection(o, process.env, undefined, await loginStateDir(o));
  await token.checkStart?.();
  const query: Record<string, string[]> = {};
  for (const pair of o.query ?? []) {
    const at = pair.indexOf('=');
    (query[pair.slice(0, at)] ??= []).push(pair.slice(at + 1));
  }
  const http = new HttpClient({ baseUrl, token });
  try {
    const res = await http.request({
      api,
      method: 'GET',
      path: `${APIS[api].prefix}${path.startsWith('/') ? path : `/${path}`}`,
      query,
      schema: ANY_BODY,
    });
    process.stdout.write(`${JSON.stringify(res.body, null, 2)}\n`);
  } finally {
    await http.close();
  }
}
