import { Command } from 'commander';

// Placeholder: replaced by the full dvr command.
export function dvrCommand(): Command {
  return new Command('dvr').description('DVR management: get, delete a range, delete all');
}
