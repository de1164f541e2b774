/** `svc up`: placeholder until its helper lands it (replace this whole file). */
import { Command } from 'commander';

export function upCommand(): Command {
  return new Command('up').description('(not available yet)').action(() => {
    throw new Error('svc up is not available yet');
  });
}
