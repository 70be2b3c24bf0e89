import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '../../src/schema/schema.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';

/** The keywords of InfluxQL (InfluxDB 1.x spec, "Keywords"): as an identifier each must be double-quoted. */
const INFLUXQL_KEYWORDS = new Set(
  `ALL ALTER ANY AS ASC BEGIN BY CREATE CONTINUOUS DATABASE DATABASES DEFAULT DELETE DESC DESTINATIONS DIAGNOSTICS
  DISTINCT DROP DURATION END EVERY EXPLAIN FIELD FOR FROM GRANT GRANTS GROUP GROUPS IN INF INSERT INTO KEY KEYS KILL
  LIMIT SHOW MEASUREMENT MEASUREMENTS NAME OFFSET ON ORDER PASSWORD POLICY POLICIES PRIVILEGES QUERIES QUERY READ
  REPLICATION RESAMPLE RETENTION REVOKE SELECT SERIES SET SHARD SHARDS SLIMIT SOFFSET STATS SUBSCRIPTION SUBSCRIPTIONS
  TAG TO USER USERS VALUES WHERE WITH WRITE`.split(/\s+/),
);
/** An unquoted InfluxQL identifier. */
const UNQUOTED_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Every name a hand-written query would type: measurement, tag and field names of the whole schema. */
function names(): Array<{ where: string; name: string }> {
  return [...SCHEMA.values()].flatMap((m) => [
    { where: 'measurement', name: m.name },
    ...Object.keys(m.tags).map((name) => ({ where: `${m.name} tag`, name })),
    ...Object.keys(m.fields).map((name) => ({ where: `${m.name} field`, name })),
  ]);
}

describe('schema names are plain InfluxQL identifiers', () => {
  it('no measurement, tag or field is an InfluxQL keyword', () => {
    const keywords = names().filter(({ name }) => INFLUXQL_KEYWORDS.has(name.toUpperCase()));
    expect(keywords).toEqual([]);
  });

  it('every name is an identifier that needs no quotes', () => {
    expect(names().filter(({ name }) => !UNQUOTED_IDENTIFIER.test(name))).toEqual([]);
  });
});

describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)('unquoted queries parse on InfluxDB 1.6.7', () => {
  let influx: InfluxV1Server;
  beforeAll(async () => {
    influx = await startInfluxV1();
    await influx.query('CREATE DATABASE db');
  });
  afterAll(() => influx?.stop());

  it('SELECT <every field> FROM <measurement> GROUP BY <every tag>, unquoted, for each measurement', async () => {
    const refused: string[] = [];
    for (const m of SCHEMA.values()) {
      const tags = Object.keys(m.tags);
      const query =
        `SELECT ${Object.keys(m.fields).join(', ')} FROM ` +
        `${m.name}${tags.length > 0 ? ` GROUP BY ${tags.join(', ')}` : ''}`;
      await influx.query(query, 'db').catch((err: Error) => refused.push(err.message));
    }
    expect(refused).toEqual([]);
  });

  it('the server does refuse a keyword (the check above can fail)', async () => {
    await expect(influx.query('SELECT duration, end FROM cdn_dvr_range', 'db')).rejects.toThrow(/DURATION/);
  });
});
