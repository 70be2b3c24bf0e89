import { describe, expect, it } from 'vitest';
import { DIMENSIONS, GROUPING_DIMENSION } from '../../src/sim/model/statistic-dimensions.js';
import { statisticMeasurements, trafficMeasurement } from '../../src/sources/statistic/measurements.js';
import { buildStatisticQuery } from '../../src/sources/statistic/params.js';
import { timesGroupedToPoints } from '../../src/sources/statistic/points.js';
import { statisticTimesGroupedSchema } from '../../src/sources/statistic/schemas.js';
import {
  FILTER_NAMES,
  GROUPING_KEY,
  GROUPING_KEYS,
  KEY_TAGS,
  STATISTIC_GROUPINGS,
  STATISTIC_KEYS,
  type StatisticKey,
} from '../../src/spec/statistic.js';

/*
 * The statistic keys have one table (src/spec/statistic.ts): the filters, the tags written, the response schema, the
 * query, the measurement texts and the simulator's dimensions are read from it, so no key is missing from one of them.
 */

const keys = Object.keys(STATISTIC_KEYS) as StatisticKey[];
const sample = (key: StatisticKey) => (STATISTIC_KEYS[key].type === 'integer' ? 404 : `${key}-value`);
const START = '2024-05-01T00:00:00Z';

describe('the statistic key table', () => {
  it('names the filters, in the order they are sent, and the tags of every key but the scope', () => {
    expect(FILTER_NAMES).toEqual(keys.filter((k) => STATISTIC_KEYS[k].filter));
    expect(FILTER_NAMES.slice(0, 2)).toEqual(['service', 'account']);
    expect(KEY_TAGS).toEqual(keys.filter((k) => STATISTIC_KEYS[k].of !== 'scope'));
  });

  it('every result key of every grouping is read by the schema and written as its tag', () => {
    for (const grouping of STATISTIC_GROUPINGS) {
      const row = Object.fromEntries(GROUPING_KEYS[grouping].map((k) => [k, sample(k)]));
      const body = statisticTimesGroupedSchema.parse({
        start: START,
        end: '2024-05-01T00:05:00Z',
        granularity: 'PT5M',
        result: [{ start: START, end: '2024-05-01T00:05:00Z', result: [{ ...row, traffic: 1 }] }],
      });
      const [point] = timesGroupedToPoints(grouping, body, { account: 'acme' });
      for (const key of GROUPING_KEYS[grouping]) expect(point!.tags[STATISTIC_KEYS[key].tag]).toBe(String(sample(key)));
    }
  });

  it('every filter is sent by the query', () => {
    const filters = Object.fromEntries(FILTER_NAMES.map((k) => [k, k === 'service' ? 'media' : sample(k)]));
    const plainTotal = { grouping: undefined, times: false };
    const query = buildStatisticQuery({ start: START, end: '2024-05-01T01:00:00Z', ...filters }, plainTotal);
    for (const key of FILTER_NAMES) expect(query[key]).toBe(filters[key]);
  });

  it("every grouping's measurement describes its key tags with the table's text", () => {
    for (const grouping of STATISTIC_GROUPINGS.filter((g) => g !== 'accounts')) {
      const measurement = statisticMeasurements.find((m) => m.name === trafficMeasurement(grouping))!;
      for (const key of GROUPING_KEYS[grouping]) {
        expect(measurement.tags[STATISTIC_KEYS[key].tag]).toBe(STATISTIC_KEYS[key].text);
      }
    }
  });

  it('the simulator splits traffic by every request filter, and groups each such grouping by it', () => {
    const requestFilters = keys.filter((k) => STATISTIC_KEYS[k].filter && STATISTIC_KEYS[k].of === 'request');
    expect([...DIMENSIONS].sort()).toEqual([...requestFilters].sort());
    const split = STATISTIC_GROUPINGS.filter((g) => (DIMENSIONS as readonly string[]).includes(GROUPING_KEY[g]));
    expect(Object.keys(GROUPING_DIMENSION).sort()).toEqual([...split].sort());
  });
});
