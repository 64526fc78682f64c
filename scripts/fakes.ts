/**
 * `npm run fakes -- <name>…`: local fakes of the outside APIs the examples
 * call (github, stripe, slack, anthropic, openai), the same code their
 * tests start, so an example can be tried by hand with no account and no
 * network. Each listens on 127.0.0.1 on its fixed port (`--port` moves a
 * single one), prints the variables to export, logs one line per request
 * it answers, and stops on Ctrl-C or SIGTERM.
 */
import { parseArgs } from 'node:util';
import { FAKES, type FakeName, type RunningFake } from '../examples/fakes/index.js';

const USAGE = `usage: npm run fakes -- <name>... [--port N]
fakes: ${Object.entries(FAKES).map(([name, fake]) => `${name} (${fake.port})`).join(', ')}`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help === true || positionals.length === 0) return void console.log(USAGE);
  const unknown = positionals.filter((name) => !Object.hasOwn(FAKES, name));
  if (unknown.length > 0) fail(`no fake named ${unknown.join(', ')}\n${USAGE}`);
  if (values.port !== undefined && (positionals.length > 1 || !/^\d+$/.test(values.port) || Number(values.port) > 65535)) fail(`--port takes a port number (0-65535) and goes with a single fake\n${USAGE}`);

  const running: RunningFake[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(running.map((fake) => fake.close()));
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  for (const name of new Set(positionals as FakeName[])) {
    const port = values.port === undefined ? FAKES[name].port : Number(values.port);
    const fake = await FAKES[name].start({ port, log: (line) => console.log(`[${name}] ${line}`) }).catch((error: unknown) => fail(`fake ${name}: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`));
    running.push(fake);
    console.log(`fake ${name} listening on ${fake.url}`);
    for (const route of fake.routes) console.log(`  serves  ${route}`);
    for (const note of fake.notes) console.log(`  note    ${note}`);
    for (const [key, value] of Object.entries(fake.env)) console.log(`  export ${key}='${value}'`);
  }
  console.log('Ctrl-C stops the fakes.');
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

await main();
