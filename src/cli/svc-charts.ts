/** `svc charts`: placeholder until its helper lands it (replace this whole file). */
import { Command } from 'commander';

export function chartsCommand(): Command {
  return new Command('charts').description('(not available yet)').action(() => {
    throw new Error('svc charts is not available yet');
  });
}
