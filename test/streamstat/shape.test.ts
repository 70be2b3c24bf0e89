import { describe, expect, it } from 'vitest';
import { streamstatTimesGroupedSchema, streamstatTimesSchema } from '../../src/sources/streamstat/schemas.js';
import {
  bucketedOrFlat,
  isFlatGrouped,
  isFlatTotal,
  StreamstatShape,
  UnbucketedAnswerError,
} from '../../src/sources/streamstat/shape.js';
import { clientFor, newClock, WINDOW } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

const envelope = { start: '2026-03-10T08:00:00Z', end: '2026-03-10T09:00:00Z' };
const ctx = useSimInProcess({ clock: newClock(), quotas: { streamstat: null }, settings: { streamstatShape: 'flat' } });

describe('recognising an answer to granularity without buckets', () => {
  it('a total without a result list and a list of elements are flat; buckets and an empty list are not', () => {
    expect(isFlatTotal({ ...envelope, views: 3 })).toBe(true);
    expect(isFlatTotal({ ...envelope, result: [] })).toBe(false);
    expect(isFlatGrouped({ ...envelope, result: [{ stream: 's', account: 'a', views: 3 }] })).toBe(true);
    expect(isFlatGrouped({ ...envelope, result: [{ ...envelope, result: [] }] })).toBe(false);
    expect(isFlatGrouped({ ...envelope, result: [] })).toBe(false);
  });

  it('a bad value in a bucket is still named by its path', () => {
    const bad = { ...envelope, result: [{ ...envelope, views: 'many' }] };
    const parsed = bucketedOrFlat(streamstatTimesSchema, isFlatTotal).safeParse(bad);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['result', 0, 'views']);
    expect(
      bucketedOrFlat(streamstatTimesGroupedSchema('streams'), isFlatGrouped).safeParse({ ...envelope, result: [] })
        .success,
    ).toBe(true);
  });

  it('the client raises UnbucketedAnswerError (CDN_ERR_UNBUCKETED) when the service ignores granularity', async () => {
    const client = clientFor(ctx.sim);
    await expect(client.times({ ...WINDOW, granularity: 'PT15M' })).rejects.toMatchObject({
      code: 'CDN_ERR_UNBUCKETED',
      granularity: 'PT15M',
    });
    await expect(client.timesGrouped('streams', { ...WINDOW, granularity: 'PT15M' })).rejects.toBeInstanceOf(
      UnbucketedAnswerError,
    );
  });

  it('the shape is learnt once: onFlat runs on the first flat answer only', () => {
    const seen: string[] = [];
    const shape = new StreamstatShape((g) => seen.push(g));
    expect(shape.flat).toBe(false);
    shape.markFlat('PT5M');
    shape.markFlat('PT5M');
    expect(shape.flat).toBe(true);
    expect(seen).toEqual(['PT5M']);
  });
});
