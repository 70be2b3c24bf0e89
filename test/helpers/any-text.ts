import fc from 'fast-check';

const SURROGATES_FROM = 0xd800;
const SURROGATES = 0x800;

/**
 * Strings of any Unicode scalar values (every code point but the surrogates): the domain of fast-check's
 * `fc.string({ unit: 'binary' })`, drawn from integers. fast-check's own unit first maps every one of its 1.1 million
 * code points to learn which of its "dangerous" strings it can build, once in every worker that loads it; this one
 * costs nothing up front. Those strings stay in the tests through the other members of their `oneof`.
 */
export function anyCodePoints(constraints: { maxLength?: number } = {}): fc.Arbitrary<string> {
  const scalar = fc
    .integer({ min: 0, max: 0x10ffff - SURROGATES })
    .map((n) => (n >= SURROGATES_FROM ? n + SURROGATES : n));
  return fc.array(scalar, constraints).map((points) => String.fromCodePoint(...points));
}
