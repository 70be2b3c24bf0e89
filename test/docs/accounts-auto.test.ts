/**
 * Where `accounts: auto` finds the accounts is said the same way on every page: the inventory first, the statistics
 * `/accounts` grouping only where the inventory is missing (src/sources/accounts.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = [
  'README.md',
  'docs/scaling.md',
  'docs/configuration.md',
  'docs/deploy.md',
  'config/collector.example.yaml',
];

/** Paragraphs (and table rows, and YAML comment blocks) that say where `auto` reads the accounts from. */
function discoveryParagraphs(text: string): string[] {
  return text
    .split(/\n\s*\n|\n(?=\|)/)
    .filter((p) => /auto/.test(p) && /(\/accounts`? grouping|statistics \/accounts|inventory)/.test(p));
}

describe('accounts: auto comes from the inventory, on every page', () => {
  it.each(PAGES)('%s', (page) => {
    for (const paragraph of discoveryParagraphs(readFileSync(join(ROOT, page), 'utf8'))) {
      const inventory = paragraph.search(/inventory/);
      const grouping = paragraph.search(/\/accounts`? grouping|statistics \/accounts/);
      expect(inventory, paragraph).toBeGreaterThanOrEqual(0);
      if (grouping >= 0) expect(inventory, paragraph).toBeLessThan(grouping);
    }
  });
});
