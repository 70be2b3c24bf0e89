import { Command } from 'commander';
import { shardOf } from '../config/shard.js';
import { CliError, configFileOption, EXIT_USAGE, parseIntArg, writeOutput } from './common.js';

interface ConfigOptions {
  reference?: boolean;
  print?: boolean;
  json?: boolean;
  write?: string;
  config?: string;
  shards?: number;
}

export function configCommand(): Command {
  return new Command('config')
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
    .option('--shards <n>', 'print which accounts each of n shards (--shard i/n) collects', parseIntArg('--shards', 1))
    .action(async (o: ConfigOptions) => {
      // The schema and its tools load when the command runs, not for `config --help` or an argument error.
      const { loadConfigFile } = await import('../config/loader.js');
      if (o.print) {
        const { renderEffectiveConfig } = await import('../config/print.js');
        process.stdout.write(renderEffectiveConfig(loadConfigFile(o.config)));
        return;
      }
      if (o.reference) {
        const { configReference, renderConfigReference } = await import('../config/reference.js');
        const text = o.json ? `${JSON.stringify(configReference(), null, 2)}\n` : renderConfigReference();
        if (o.write) await writeOutput(o.write, text);
        else process.stdout.write(text);
        return;
      }
      if (o.shards !== undefined) {
        const { accounts } = loadConfigFile(o.config);
        if (accounts === 'auto')
          throw new CliError(
            '--shards: accounts is auto: each instance keeps the discovered accounts of its shard',
            EXIT_USAGE,
          );
        const shards = Array.from({ length: o.shards }, (_, i) => accounts.filter((a) => shardOf(a, o.shards!) === i));
        shards.forEach((mine, i) =>
          process.stdout.write(`${i}/${o.shards}: ${mine.join(', ') || '(none: this shard would refuse to start)'}\n`),
        );
        return;
      }
      throw new CliError('config: choose --print, --reference or --shards <n> (see --help)', EXIT_USAGE);
    });
}
