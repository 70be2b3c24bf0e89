import type { Requester } from '../../contracts/requester.js';
import type { ZodType } from 'zod';
import { deleteAllBody, deleteRangeBody, type DvrDeleteRange } from './params.js';
import { dvrStreamPath } from './path.js';
import {
  dvrDeleteAllResponseSchema,
  dvrDeleteRangeResponseSchema,
  dvrGetResponseSchema,
  type DvrDeleteAllResponse,
  type DvrDeleteRangeResponse,
  type DvrGetResponse,
} from './schemas.js';

/**
 * Network-DVR management (spec 000). Every method checks the spec's rules first and throws a ParameterError naming
 * the parameter (as a rejection), so a broken call is never sent. A deletion that fails on some node surfaces as an
 * ApiError
 * (HTTP 500) whose `failedHosts` lists those nodes; the others may already have been changed.
 */
export class DvrClient {
  constructor(private readonly http: Requester) {}

  /** One record per node. */
  async get(account: string, stream: string): Promise<DvrGetResponse> {
    return this.call(account, 'GET', dvrStreamPath(account, stream), undefined, dvrGetResponseSchema);
  }

  /** Deletes [fromTs, toTs) or [fromTs, fromTs + durationSec) on `host` (`*` = every node). */
  async deleteRange(account: string, stream: string, range: DvrDeleteRange): Promise<DvrDeleteRangeResponse> {
    const path = dvrStreamPath(account, stream);
    return this.call(account, 'DELETE', path, deleteRangeBody(range), dvrDeleteRangeResponseSchema);
  }

  /** Deletes everything recorded on `host` (`*` = every node); an alive stream then records again. */
  async deleteAll(account: string, stream: string, target: { host: string }): Promise<DvrDeleteAllResponse> {
    const path = dvrStreamPath(account, stream);
    return this.call(account, 'DELETE', path, deleteAllBody(target.host), dvrDeleteAllResponseSchema);
  }

  private async call<T>(
    account: string,
    method: 'GET' | 'DELETE',
    path: string,
    body: unknown,
    schema: ZodType<T>,
  ): Promise<T> {
    const res = await this.http.request({ api: 'dvr', account, method, path, body, schema });
    return res.body;
  }
}
