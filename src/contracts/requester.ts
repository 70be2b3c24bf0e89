import type { ApiResponse, RequestSpec } from '../http/client.js';

/**
 * What a source asks of the HTTP layer: one request, its answer parsed by the request's schema. The runtime's
 * HttpClient (token, limiter gate, retries of a refused token, body cap) is one; a source names no more of it, so a
 * test or another transport can stand in.
 */
export interface Requester {
  request<T>(spec: RequestSpec<T>): Promise<ApiResponse<T>>;
}
