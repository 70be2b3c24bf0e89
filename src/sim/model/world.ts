import { hash32, unit } from './rng.js';

/** The simulated provider's customers: accounts with resources (CDN properties) and streams, and DVR nodes. */
export interface SimResource {
  /** Resource identifier (numeric string, as the real service uses). */
  id: string;
  name: string;
  /** Host name of the resource. */
  cname: string;
  service: 'media' | 'static';
}

export interface SimStream {
  name: string;
  type: 'live' | 'vod' | 'unknown';
  /** Streams with DVR are listed by `cdn-collector sim` and answer on the DVR API. */
  dvr: boolean;
}

export interface SimAccount {
  name: string;
  resources: SimResource[];
  streams: SimStream[];
}

export interface WorldOptions {
  seed: number;
  accounts: number;
  resourcesPerAccount: number;
  streamsPerAccount: number;
  /** DVR nodes (hosts) that record every DVR stream. */
  nodes: number;
}

export interface World {
  seed: number;
  accounts: SimAccount[];
  nodes: string[];
}

export const defaultWorldOptions: WorldOptions = {
  seed: 42,
  accounts: 2,
  resourcesPerAccount: 3,
  streamsPerAccount: 3,
  nodes: 3,
};

const ACCOUNT_NAMES = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'tyrell'];
/**
 * Resource names deliberately include what breaks naive line-protocol writers:
 * spaces, commas, `=`, quotes, backslashes and non-ASCII letters.
 */
const RESOURCE_NAMES = ['www', 'video cdn', 'static,assets', 'api=v2', 'quoted "live"', 'Видео', 'back\\slash', 'img'];
const STREAM_NAMES = ['live/main', 'news', 'sport hd', 'vod/archive/2026', 'concert', 'kids'];
const STREAM_TYPES: SimStream['type'][] = ['live', 'live', 'vod', 'unknown'];

export function createWorld(options: Partial<WorldOptions> = {}): World {
  const o = { ...defaultWorldOptions, ...options };
  const accounts: SimAccount[] = [];
  for (let a = 0; a < o.accounts; a++) {
    const base = ACCOUNT_NAMES[a % ACCOUNT_NAMES.length]!;
    const name = a < ACCOUNT_NAMES.length ? base : `${base}-${Math.floor(a / ACCOUNT_NAMES.length)}`;
    const resources: SimResource[] = [];
    for (let r = 0; r < o.resourcesPerAccount; r++) {
      const id = String(100_000 + (hash32(o.seed, name, 'res', r) % 900_000));
      const label = RESOURCE_NAMES[(r + a) % RESOURCE_NAMES.length]!;
      resources.push({
        id,
        name: r < RESOURCE_NAMES.length ? label : `${label} ${r}`,
        cname: `r${id}.${name}.cdn.example`,
        service: unit(o.seed, name, 'svc', r) < 0.6 ? 'media' : 'static',
      });
    }
    const streams: SimStream[] = [];
    for (let s = 0; s < o.streamsPerAccount; s++) {
      const label = STREAM_NAMES[s % STREAM_NAMES.length]!;
      streams.push({
        name: s < STREAM_NAMES.length ? label : `${label}-${s}`,
        type: STREAM_TYPES[hash32(o.seed, name, 'stype', s) % STREAM_TYPES.length]!,
        // The first stream of every account always has DVR, so DVR is never empty.
        dvr: s === 0 || unit(o.seed, name, 'dvr', s) < 0.5,
      });
    }
    accounts.push({ name, resources, streams });
  }
  const nodes = Array.from({ length: o.nodes }, (_, i) => `node-${String(i + 1).padStart(2, '0')}`);
  return { seed: o.seed, accounts, nodes };
}

export function findAccount(world: World, name: string): SimAccount | undefined {
  return world.accounts.find((a) => a.name === name);
}

/** Every account's resources by id, built once per world: a grouped answer looks up each of its rows. */
const resourceIndex = new WeakMap<World, Map<string, SimResource>>();

export function findResource(world: World, id: string): SimResource | undefined {
  let index = resourceIndex.get(world);
  if (!index) {
    index = new Map();
    for (const r of world.accounts.flatMap((a) => a.resources)) if (!index.has(r.id)) index.set(r.id, r);
    resourceIndex.set(world, index);
  }
  return index.get(id);
}
