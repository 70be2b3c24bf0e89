import { Command } from 'commander';
import { shardOf } from '../../config/shard.js';
import { CliError, configFileOption, EXIT_USAGE, parseIntArg, writeOutput } from '../common/common.js';
import type { Shard } from '../../config/shard.js';
import { shardOption } from '../common/shard.js';

interface ConfigOptions {
  reference?: boolean;
  print?: boolean;
  json?: boolean;
  write?: string;
  config?: string;
  shards?: number;
  shard?: Shard;
}

export function configCommand(): Command {
  return (
    new Command('config')
      .description(
        'Configuration tools: the effective configuration, the field reference (docs/configuration.md), how accounts ' +
          'split into shards',
      )
      .option(
        '--print',
        'print the effective configuration (file + environment + flags + defaults) as YAML, secrets redacted',
      )
      .option('--reference', 'print the reference of every field: type, default, env override, meaning (markdown)')
      .option('--json', 'with --reference: JSON instead of markdown')
      .option('--write <file>', 'with --reference: write to a file instead of stdout (e.g. docs/configuration.md)')
      .addOption(configFileOption())
      .option(
        '--shards <n>',
        'print which accounts each of n shards (--shard i/n) collects',
        parseIntArg('--shards', 1),
      )
      // With --print: the configuration of that shard's instance (the accounts and DVR streams it keeps).
      .addOption(shardOption())
      .action(async (o: ConfigOptions) => {
        // The schema and its tools load when the command runs, not for `config --help` or an argument error.
        const { loadConfigFile } = await import('../../config/loader.js');
        if (o.print) {
          const { renderEffectiveConfig } = await import('../../config/print.js');
          const { applyShard } = await import('../common/apply-shard.js');
          process.stdout.write(renderEffectiveConfig(applyShard(loadConfigFile(o.config), o.shard)));
          return;
        }
        if (o.reference) {
          const { configReference, renderConfigReference } = await import('../../config/reference.js');
          const text = o.json ? `${JSON.stringify(configReference(), null, 2)}\n` : renderConfigReference();
          if (o.write) await writeOutput(o.write, text);
          else process.stdout.write(text);
          return;
        }
        if (o.shards !== undefined) {
          // The split needs the accounts alone: no token or sink has to be set to print it.
          const accounts = (await import('../../config/loader.js')).loadAccounts(o.config);
          if (accounts === 'auto')
            throw new CliError(
              '--shards: accounts is auto: each instance keeps the discovered accounts of its shard',
              EXIT_USAGE,
            );
          const shards = Array.from({ length: o.shards }, (_, i) =>
            accounts.filter((a) => shardOf(a, o.shards!) === i),
          );
          shards.forEach((mine, i) =>
            process.stdout.write(
              `${i}/${o.shards}: ${mine.join(', ') || '(none: this shard would refuse to start)'}\n`,
            ),
          );
          return;
        }
        throw new CliError('config: choose --print, --reference or --shards <n> (see --help)', EXIT_USAGE);
      })
  );
}
