import { describe, expect, it } from 'vitest';
import { TokenEvidence } from '../../src/http/token-evidence.js';
import type { TokenProvider } from '../../src/http/token-provider.js';
import { ApiError } from '../../src/http/errors.js';

const tokens: TokenProvider = { source: 'test', current: async () => 'T1', willRenew: () => true };
const refusal = () =>
  new ApiError({
    status: 403,
    body: { status: 'Forbidden', description: 'Invalid token or no access' },
    request: { api: 'metrics', method: 'GET', url: 'http://cdn.invalid/app/metrics/v1/' },
  });

/** The order of sends and answers decides; another scope's success proves the token, the same scope's does not. */
describe('TokenEvidence', () => {
  it('a success of another scope answered after the refused call was sent proves the token alive', async () => {
    const evidence = new TokenEvidence();
    const other = evidence.sent('T1'); // sent first, answered after the refused call was sent
    const refused = evidence.sent('T1');
    evidence.settled(refused, false, 'metrics nosuch');
    const judged = evidence.judge(refusal(), { ticket: refused, scope: 'metrics nosuch', retry: false, tokens });
    evidence.settled(other, true, 'metrics acme'); // still under way when the refusal came: waited for
    const err = refusal();
    expect(await judged).toBe(false);
    // Known from now on: the scope's next refusal costs no renewal.
    const again = evidence.sent('T1');
    evidence.settled(again, false, 'metrics nosuch');
    expect(await evidence.judge(err, { ticket: again, scope: 'metrics nosuch', retry: false, tokens })).toBe(false);
    expect(err.noAccess).toBe(true);
  });

  it('a success answered before the refused call was sent proves nothing: one renewal', async () => {
    const evidence = new TokenEvidence();
    const before = evidence.sent('T1');
    evidence.settled(before, true, 'metrics acme');
    const refused = evidence.sent('T1');
    evidence.settled(refused, false, 'metrics nosuch');
    const err = refusal();
    expect(await evidence.judge(err, { ticket: refused, scope: 'metrics nosuch', retry: false, tokens })).toBe(true);
    expect(err).toMatchObject({ noAccess: false, tokenRenewal: 'renewing' });
  });

  it('a success of the same scope proves nothing (the token died in between): one renewal', async () => {
    const evidence = new TokenEvidence();
    const served = evidence.sent('T1');
    const refused = evidence.sent('T1');
    evidence.settled(refused, false, 'metrics acme');
    const judged = evidence.judge(refusal(), { ticket: refused, scope: 'metrics acme', retry: false, tokens });
    evidence.settled(served, true, 'metrics acme');
    expect(await judged).toBe(true);
  });

  it('a success with another token proves nothing of this one', async () => {
    const evidence = new TokenEvidence();
    const refused = evidence.sent('T1');
    const other = evidence.sent('T2');
    evidence.settled(refused, false, 'metrics nosuch');
    evidence.settled(other, true, 'metrics acme');
    expect(await evidence.judge(refusal(), { ticket: refused, scope: 'metrics nosuch', retry: false, tokens })).toBe(
      true,
    );
  });

  it('the renewed token refused too is no access, with nothing proven', async () => {
    const evidence = new TokenEvidence();
    const retried = evidence.sent('T2');
    evidence.settled(retried, false, 'metrics nosuch');
    const err = refusal();
    expect(await evidence.judge(err, { ticket: retried, scope: 'metrics nosuch', retry: true, tokens })).toBe(false);
    expect(err).toMatchObject({ noAccess: true, tokenRenewal: 'renewed' });
  });
});
