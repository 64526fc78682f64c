/** `vigil init [dir]`: a new project with a plain agent, its tests and a config (src/cli/init/). */
import { isAbsolute, relative } from 'node:path';
import { Command } from 'commander';
import { print } from '../print.js';

export function initCommand(): Command {
  return new Command('init')
    .summary('start a project: a plain agent, its tests, vigil.json and a README of next steps')
    .description(
      'write a runnable project into <dir> (default: the current folder): package.json depending on vigil-agents, ' +
        'agent.ts (a plain agent, no API key), agent.test.ts, vigil.json with secrets made for it, tsconfig.json, ' +
        'README.md and .gitignore. An existing package.json gains what is missing; any other existing file stops it, with nothing written',
    )
    .argument('[dir]', 'the project folder (created if missing)', '.')
    .option('--vigil-agents <spec>', 'how package.json names vigil-agents: a version range (default ^<this version>), a tarball or a folder')
    .action(async (dir: string, flags: { vigilAgents?: string }) => {
      const { writeProject } = await import('../init/write-project.js');
      const result = await writeProject(dir, flags.vigilAgents === undefined ? {} : { vigilAgents: flags.vigilAgents });
      const fromHere = relative(process.cwd(), result.dir);
      const where = fromHere === '' ? '.' : fromHere.startsWith('..') || isAbsolute(fromHere) ? result.dir : fromHere;
      print(`Wrote a Vigil project to ${result.dir}:`);
      for (const file of result.written) print(`  ${file}`);
      for (const entry of result.kept) print(`  (package.json: kept your ${entry})`);
      print('');
      print('Next:');
      if (where !== '.') print(`  cd ${where}`);
      print('  npm install');
      print('  npm test');
      print('  npx vigil serve      # or: npx vigil dev, reloading agent.ts on save');
      print('README.md says how to send it a message and a signed webhook.');
    });
}
