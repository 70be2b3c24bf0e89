import {
  GROUPING_KEY,
  STATISTIC_GROUPINGS,
  STATISTIC_KEYS,
  type FilterName,
  type GroupingKey,
  type RequestKey,
  type StatisticGrouping,
} from '../../spec/statistic.js';
import { splitInteger, unit } from './rng.js';
import { BROWSERS, PLATFORMS } from './views.js';
import type { World } from './world.js';

/**
 * Audience dimensions of traffic statistics. Each account splits its traffic over the values of a dimension with fixed
 * weights (deterministic from seed and account). A filter takes one value's share; a grouping splits into all shares
 * with splitInteger, so the groups always add up exactly to the (filtered) total they split.
 */
export type Dimension = Extract<RequestKey, FilterName>;
/**
 * Filters apply in this fixed order (region after country, so a country filter narrows the region split). A record, so
 * that a key the spec's table adds to the request's keys is a type error here until it has its place.
 */
const FILTER_ORDER: Record<Dimension, number> = {
  country: 0,
  region: 1,
  browser: 2,
  platform: 3,
  referrer: 4,
  code: 5,
  custom: 6,
  path: 7,
};
export const DIMENSIONS = (Object.keys(FILTER_ORDER) as Dimension[]).sort((a, b) => FILTER_ORDER[a] - FILTER_ORDER[b]);
export type DimensionFilters = Partial<Record<Dimension, string>>;
/** Groupings whose groups a dimension tells apart; `regions` splits by (country, region). */
export type DimensionGrouping = {
  [G in StatisticGrouping]: GroupingKey<G> extends Dimension ? G : never;
}[StatisticGrouping];

/** The additive quantities of a selection; ratios and peaks derive from them. */
export interface Amounts {
  bytes: number;
  requests: number;
  cachedBytes: number;
}

export type Language = 'en' | 'ru';
type Names = Record<Language, string>;

interface Region {
  code: string;
  names: Names;
  weight: number;
}
interface Country extends Region {
  regions: Region[];
}

/** ISO 3166 codes; KZ-00 stands for "region unknown", whose name is empty (the spec: region_name may be empty). */
const COUNTRIES: Country[] = [
  {
    code: 'RU',
    names: { en: 'Russia', ru: 'Россия' },
    weight: 50,
    regions: [
      { code: 'RU-MOW', names: { en: 'Moscow', ru: 'Москва' }, weight: 45 },
      { code: 'RU-SPE', names: { en: 'Saint Petersburg', ru: 'Санкт-Петербург' }, weight: 30 },
      { code: 'RU-SVE', names: { en: 'Sverdlovsk Oblast', ru: 'Свердловская область' }, weight: 25 },
    ],
  },
  {
    code: 'US',
    names: { en: 'United States', ru: 'США' },
    weight: 25,
    regions: [
      { code: 'US-CA', names: { en: 'California', ru: 'Калифорния' }, weight: 55 },
      { code: 'US-NY', names: { en: 'New York', ru: 'Нью-Йорк' }, weight: 45 },
    ],
  },
  {
    code: 'DE',
    names: { en: 'Germany', ru: 'Германия' },
    weight: 15,
    regions: [
      { code: 'DE-BE', names: { en: 'Berlin', ru: 'Берлин' }, weight: 60 },
      { code: 'DE-BY', names: { en: 'Bavaria', ru: 'Бавария' }, weight: 40 },
    ],
  },
  {
    code: 'KZ',
    names: { en: 'Kazakhstan', ru: 'Казахстан' },
    weight: 10,
    regions: [
      { code: 'KZ-ALA', names: { en: 'Almaty', ru: 'Алматы' }, weight: 70 },
      { code: 'KZ-00', names: { en: '', ru: '' }, weight: 30 },
    ],
  },
];

/** Values with what breaks naive writers: empty strings, spaces, commas, `=`, quotes, backslashes, non-ASCII. */
const FLAT_VALUES: Record<Exclude<Dimension, 'country' | 'region'>, readonly string[]> = {
  browser: BROWSERS.names,
  platform: PLATFORMS.names,
  referrer: [
    '',
    'https://www.google.com/',
    'https://yandex.ru/search/',
    'https://example.com/a b,c',
    'android-app://com.example',
  ],
  code: ['200', '206', '304', '403', '404', '500', '502'],
  custom: ['', 'campaign=spring', 'label,with,commas', 'promo "x"'],
  path: ['/', '/index.html', '/video/seg 1.ts', '/img/a,b=c.png', '/файлы/видео.mp4', '/back\\slash'],
};
/** Typical shares: most responses are 200, most traffic has no label. Scaled per account by a fixed factor. */
const BASE_WEIGHTS: Record<Exclude<Dimension, 'country' | 'region'>, readonly number[]> = {
  browser: BROWSERS.weights,
  platform: PLATFORMS.weights,
  referrer: [40, 25, 20, 10, 5],
  code: [70, 12, 10, 2, 4, 1, 1],
  custom: [60, 20, 12, 8],
  path: [10, 25, 35, 15, 10, 5],
};

const isDimension = (key: string): key is Dimension => Object.hasOwn(FILTER_ORDER, key);

export const GROUPING_DIMENSION = Object.fromEntries(
  STATISTIC_GROUPINGS.flatMap((g) => (isDimension(GROUPING_KEY[g]) ? [[g, GROUPING_KEY[g]]] : [])),
) as Record<DimensionGrouping, Dimension>;

interface Split {
  keys: string[];
  weights: number[];
}

const splitCache = new WeakMap<World, Map<string, Split>>();

/** The account's split of a dimension; `region` within `country` when given, else over all (country, region) pairs. */
function splitOf(world: World, account: string, dimension: Dimension, country?: string): Split {
  let cache = splitCache.get(world);
  if (!cache) splitCache.set(world, (cache = new Map()));
  const cacheKey = `${account}\u0000${dimension}\u0000${country ?? ''}`;
  let split = cache.get(cacheKey);
  if (!split) cache.set(cacheKey, (split = buildSplit(world, account, dimension, country)));
  return split;
}

function buildSplit(world: World, account: string, dimension: Dimension, country?: string): Split {
  // Each account's mix differs: base weight × a fixed factor in [0.5, 1.5).
  const vary = (key: string, base: number) =>
    Math.max(1, Math.round(base * 100 * (0.5 + unit(world.seed, account, dimension, key))));
  if (dimension === 'country')
    return { keys: COUNTRIES.map((c) => c.code), weights: COUNTRIES.map((c) => vary(c.code, c.weight)) };
  if (dimension === 'region') {
    const countries = country === undefined ? COUNTRIES : COUNTRIES.filter((c) => c.code === country);
    const countryWeights = splitOf(world, account, 'country');
    const pairs = countries.flatMap((c) => c.regions.map((r) => ({ c, r })));
    return {
      keys: pairs.map(({ r }) => r.code),
      weights: pairs.map(
        ({ c, r }) => countryWeights.weights[countryWeights.keys.indexOf(c.code)]! * vary(r.code, r.weight),
      ),
    };
  }
  const keys = [...FLAT_VALUES[dimension]];
  return { keys, weights: BASE_WEIGHTS[dimension].map((w, i) => vary(keys[i]!, w)) };
}

function splitAmounts(a: Amounts, weights: readonly number[]): Amounts[] {
  const bytes = splitInteger(a.bytes, weights);
  const requests = splitInteger(a.requests, weights);
  // Cached bytes follow the bytes' split: largest remainder then never gives a part more than its bytes, so the
  // guard below never cuts and cached bytes add up like the rest.
  const cached = splitInteger(a.cachedBytes, bytes);
  return weights.map((_, i) => ({
    bytes: bytes[i]!,
    requests: requests[i]!,
    cachedBytes: Math.min(cached[i]!, bytes[i]!),
  }));
}

const ZERO: Amounts = { bytes: 0, requests: 0, cachedBytes: 0 };

/** One value's share of `a`; an unknown value gets nothing. */
function take(a: Amounts, split: Split, key: string): Amounts {
  const index = split.keys.indexOf(key);
  return index < 0 ? ZERO : splitAmounts(a, split.weights)[index]!;
}

/** The share of `a` that matches every dimension filter, taken in the fixed order of DIMENSIONS. */
export function applyDimensionFilters(world: World, account: string, a: Amounts, filters: DimensionFilters): Amounts {
  let out = a;
  for (const dimension of DIMENSIONS) {
    const value = filters[dimension];
    if (value === undefined || out.bytes + out.requests === 0) continue;
    out = take(out, splitOf(world, account, dimension, dimension === 'region' ? filters.country : undefined), value);
  }
  return out;
}

/**
 * Splits an already filtered `a` by the grouping's dimension. A dimension the filters fixed leaves that one group
 * (its share was already taken); regions of a filtered country split within that country.
 */
export function splitByDimension(
  world: World,
  account: string,
  a: Amounts,
  grouping: DimensionGrouping,
  filters: DimensionFilters,
): Array<[string, Amounts]> {
  const dimension = GROUPING_DIMENSION[grouping];
  const fixed = filters[dimension];
  if (fixed !== undefined) return [[fixed, a]];
  const split = splitOf(world, account, dimension, dimension === 'region' ? filters.country : undefined);
  const parts = splitAmounts(a, split.weights);
  return split.keys.map((key, i) => [key, parts[i]!]);
}

/** Result keys of a group (spec A2), with names in the response language. */
export function dimensionRowKeys(
  grouping: DimensionGrouping,
  key: string,
  language: Language,
): Record<string, string | number> {
  switch (grouping) {
    case 'countries': {
      const c = COUNTRIES.find((x) => x.code === key);
      return { country: key, country_name: c?.names[language] ?? '' };
    }
    case 'regions': {
      const c = COUNTRIES.find((x) => x.regions.some((r) => r.code === key));
      const r = c?.regions.find((x) => x.code === key);
      return {
        country: c?.code ?? '',
        region: key,
        country_name: c?.names[language] ?? '',
        region_name: r?.names[language] ?? '',
      };
    }
    default: {
      const dimension = GROUPING_DIMENSION[grouping];
      return { [dimension]: STATISTIC_KEYS[dimension].type === 'integer' ? Number(key) : key };
    }
  }
}
