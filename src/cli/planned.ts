import type { Command } from 'commander';
import { ConfigError } from '../errors.js';

/** Contract commands that arrive with later work: listed in --help, and honest when called. */
export function registerPlanned(program: Command): void {
  const planned = (name: string, args: string, description: string): void => {
    program
      .command(`${name}${args}`)
      .description(`(planned) ${description}`)
      .allowUnknownOption()
      .action(() => {
        throw new ConfigError(`efa-sync ${name} is planned and not available in this version`, name);
      });
  };
  planned('report', '', 'one offline HTML report of a run, with a map');
  planned('grant-reader', ' <role>', 'a read-only role for analysts on schema efa');
}
