import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/server.js';

/** Starts an in-process simulator for the test file and stops it afterwards. Read `.sim` inside tests. */
export function useSimulator(options: SimulatorOptions = {}): { readonly sim: Simulator } {
  const holder: { sim?: Simulator } = {};
  beforeAll(async () => {
    holder.sim = await startSimulator(options);
  });
  afterAll(async () => {
    await holder.sim?.close();
  });
  return {
    get sim(): Simulator {
      if (!holder.sim) throw new Error('simulator not started');
      return holder.sim;
    },
  };
}
