import { APIS } from '../../spec/apis.js';
import { errorBody, SimReject } from '../model/error-body.js';
import type { SimContext } from '../model/context.js';
import type { ApiRoute, SimReply, SimRequest } from './types.js';

/** How one of the statistics APIs reads a request, step by step; each step may refuse it. */
export interface LanguageApi<L extends string, E, R> {
  api: 'statistic' | 'streamstat';
  /** The answer's language (the `language` parameter, else Accept-Language). */
  language(req: SimRequest): L | SimReject;
  /** The endpoint a path below the prefix names. */
  endpoint(path: string): E | SimReject;
  /** The query, checked against the endpoint's rules. */
  request(endpoint: E, req: SimRequest, ctx: SimContext): R | SimReject;
  /** The body of the answer to an accepted request. */
  respond(request: R, req: SimRequest, ctx: SimContext, language: L): Record<string, unknown>;
}

/**
 * The frame both statistics APIs share: the language first (a refused one is refused in English), GET only (405),
 * then the endpoint and the query; every answer, refusals included, names its language in `accept-language`.
 */
export function languageRoute<L extends string, E, R>(steps: LanguageApi<L, E, R>): ApiRoute {
  const reply = (status: number, body: Record<string, unknown>, language: string): SimReply => ({
    status,
    body,
    headers: { 'accept-language': language },
  });
  const reject = (r: SimReject, language: string) => reply(r.status, errorBody(steps.api, 'error', r.text), language);
  return {
    api: steps.api,
    prefix: APIS[steps.api].prefix,
    handle(req, ctx) {
      const language = steps.language(req);
      if (language instanceof SimReject) return reject(language, 'en');
      if (req.method !== 'GET') return reject(new SimReject(405, 'method not allowed'), language);
      const endpoint = steps.endpoint(req.path);
      if (endpoint instanceof SimReject) return reject(endpoint, language);
      const request = steps.request(endpoint, req, ctx);
      if (request instanceof SimReject) return reject(request, language);
      return reply(200, steps.respond(request, req, ctx, language), language);
    },
  };
}
