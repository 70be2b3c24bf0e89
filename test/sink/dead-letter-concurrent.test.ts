/**
 * Dead letters come from several requests at once (two in flight, and points no line can carry): appends to the one
 * file must not interleave with its close. They did: an append that met the handle another had closed failed, and the
 * cut-back it left pending erased the other's letter at the next append, a letter whose span was confirmed already.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeadLetterFile } from '../../src/sink/dead-letter.js';
import { sequence } from '../../src/sim/model/rng.js';

const letter = (line: string) => ({ sink: 'influx-v1', status: 400, reason: 'field type conflict', lines: [line] });

describe('the dead-letter file under concurrent appends', () => {
  it('every append resolves, and every letter whose append resolved stays in the file', async () => {
    const random = sequence(7);
    const dir = mkdtempSync(join(tmpdir(), 'dead-letters-'));
    const failed: unknown[] = [];
    const lost: string[] = [];
    for (let round = 0; round < 100; round++) {
      const file = new DeadLetterFile(join(dir, `dead-${round}.jsonl`));
      const appended: string[] = [];
      await Promise.all(
        Array.from({ length: 2 + (round % 5) }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, random() * 3));
          const line = `m,round=${round} v=${i}`;
          await file.append(letter(line)).then(
            () => appended.push(line),
            (err: unknown) => failed.push(err),
          );
        }),
      );
      await file.append(letter(`m,round=${round} v=last`)); // one more, as the next rejection would
      const text = readFileSync(file.path, 'utf8');
      lost.push(...appended.filter((line) => !text.includes(JSON.stringify(line))));
    }
    expect(failed).toEqual([]);
    expect(lost).toEqual([]);
  });
});
