#!/usr/bin/env node
/**
 * The `vigil` executable. Exit codes: 0 ok, 1 failure, 2 usage or config
 * error (see `vigil --help`).
 */
import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { createProgram } from './program.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

try {
  await createProgram(pkg.version).parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed the message (or the help) already.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    const prefix = error instanceof ConfigError ? 'config error' : 'error';
    process.stderr.write(`vigil: ${prefix}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = exitCodeFor(error);
  }
}
