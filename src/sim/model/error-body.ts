import { APIS, type ApiName } from '../../spec/apis.js';

/** Error bodies: metrics and DVR use `{status, description}`; the statistics APIs `{status, data}` (see auth.ts). */
export function errorBody(api: ApiName, status: string, text: string): Record<string, string> {
  return APIS[api].errorText === 'description' ? { status, description: text } : { status: 'error', data: text };
}

/** A request one of the statistics APIs refuses: the status and the text of its error body. */
export class SimReject {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {}
}
