import { Command } from 'commander';
import { loadConfigFile } from '../config/loader.js';
import { buildJobs } from '../sources/registry.js';
import { readStateSnapshot, type StateSnapshot } from '../state/snapshot.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** One job as `status --json` prints it (times ISO 8601, UTC). */
interface JobStatus {
  key: string;
  /** False for a key the state directory holds but the configuration no longer has. */
  configured: boolean;
  watermark: string | null;
  lastConfirmedAt: string | null;
  setAside: Array<{ from: string; to: string; reason: string; attempts: number; firstAt: string; nextRetryAt: string }>;
}

export function statusCommand(): Command {
  return new Command('status')
    .description("Each job's watermark and set-aside spans (with reason and next retry), read from the state directory; takes no lock, so it works while the daemon runs")
    .requiredOption('-c, --config <file>', 'YAML configuration (its state.dir is read)')
    .option('--json', 'print JSON instead of text')
    .action(async (o: { config: string; json?: boolean }) => {
      const config = loadConfigFile(o.config);
      const snapshot = await readStateSnapshot(config.state.dir);
      const jobs = statusOf(snapshot, buildJobs(config).filter((j) => j.checkpointed).map((j) => j.key));
      if (o.json) process.stdout.write(`${JSON.stringify({ stateDir: config.state.dir, jobs, problems: snapshot.problems }, null, 2)}\n`);
      else process.stdout.write(renderText(config.state.dir, jobs, snapshot.problems));
      // A state file that cannot be read is worth a non-zero exit (monitoring scripts); set-aside spans are not.
      if (snapshot.problems.length > 0) process.exitCode = 1;
    });
}

function statusOf(snapshot: StateSnapshot, configured: string[]): JobStatus[] {
  const keys = [...new Set([...configured, ...snapshot.jobs.keys()])].sort();
  return keys.map((key) => {
    const job = snapshot.jobs.get(key);
    return {
      key,
      configured: configured.includes(key),
      watermark: iso(job?.watermark),
      lastConfirmedAt: iso(job?.lastConfirmedAt),
      setAside: (job?.setAside ?? []).map((e) => ({
        from: iso(e.from)!,
        to: iso(e.to)!,
        reason: e.reason,
        attempts: e.attempts,
        firstAt: iso(e.firstAt)!,
        nextRetryAt: iso(e.nextRetryAt)!,
      })),
    };
  });
}

function renderText(dir: string, jobs: JobStatus[], problems: string[]): string {
  const lines = [`state: ${dir}`];
  const width = Math.max(0, ...jobs.map((j) => j.key.length));
  for (const job of jobs) {
    const aside = job.setAside.length > 0 ? `  set aside: ${job.setAside.length}` : '';
    lines.push(`${job.key.padEnd(width)}  watermark ${job.watermark ?? 'none'}${aside}${job.configured ? '' : '  (not configured)'}`);
    for (const e of job.setAside) {
      lines.push(`  ${e.from}/${e.to}  attempts ${e.attempts}, next retry ${e.nextRetryAt}: ${e.reason}`);
    }
  }
  for (const p of problems) lines.push(`problem: ${p}`);
  return `${lines.join('\n')}\n`;
}
