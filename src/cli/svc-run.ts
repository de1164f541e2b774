/** `svc run`: placeholder until its helper lands it (replace this whole file). */
import { Command } from 'commander';

export function runCommand(): Command {
  return new Command('run').description('(not available yet)').action(() => {
    throw new Error('svc run is not available yet');
  });
}
