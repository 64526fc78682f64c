/**
 * docs/configuration.md, generated from the configuration's zod schema
 * (src/config/schema.ts) through its JSON Schema: every key, its type,
 * its default and its description. Run `npm run docs:config` after changing
 * the schema; test/docs/configuration.test.ts fails while the two disagree,
 * and so does a key without a description.
 *
 *   npx tsx scripts/config-reference.ts           # writes docs/configuration.md
 *   npx tsx scripts/config-reference.ts --check   # exit 1 if the file is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { configSchema } from '../src/config/schema.js';

export const CONFIGURATION_MD = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

interface JsonSchema {
  type?: string;
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
}

const INTRO = `# Configuration reference

<!-- Generated from src/config/schema.ts by \`npm run docs:config\`: change the schema, then run it. Do not edit by hand. -->

\`vigil serve\` (and \`vigil dev\`, and the commands that open the store) read one
config file: \`--config FILE\`, else \`./vigil.json\` when the working directory
has one (\`vigil init\` writes it), else a built-in demo config. The file is
JSON, or a \`.js\`/\`.mjs\`/\`.ts\` module whose default export is the object (or
a function returning it). Every problem is reported at once, each naming its
key; an unknown key is an error, not ignored.

- **Paths** (\`store\`'s SQLite folder, \`agent\`) are relative to the config file,
  not to where the command runs.
- **Secrets** (\`token\`, \`linkSecret\`, webhook and channel secrets) are given
  inline or as \`"env:NAME"\`, read from the environment at startup; a variable
  that is not set stops the service before it listens.
- **Durations** are integer milliseconds (\`…Ms\`) or seconds (\`…Seconds\`).

A minimal deployment:

\`\`\`json
{
  "store": "postgres://vigil@db.internal:5432/vigil",
  "host": "127.0.0.1",
  "port": 8787,
  "publicUrl": "https://vigil.example.com",
  "token": "env:VIGIL_TOKEN",
  "agent": "./agent.ts",
  "sources": { "github": { "type": "github", "secret": "env:GITHUB_WEBHOOK_SECRET" } },
  "channels": {
    "slack": { "type": "slack", "botToken": "env:SLACK_BOT_TOKEN" },
    "ops": { "type": "slack", "audience": "operator", "botToken": "env:SLACK_BOT_TOKEN", "to": "C0OPS" }
  }
}
\`\`\`

**Channels have names.** A channel's name is its key in \`channels\`, and the
key under which each inbox keeps its person's address for it
(\`contacts.<name>\`, set with \`vigil settings\`, the API or the dashboard).
Two Slack workspaces are two names. A channel's \`audience\` says who hears
it: \`users\` (the default: each inbox's messages, to its person) or
\`operator\` (messages for whoever runs the service; never a user's). The
older form, keyed by kind with no \`type\` (\`"slack": { "url": … }\`), still
works: it is a channel named for its kind, for users, so its contacts are
still \`contacts.slack\`. **Renaming a channel changes that key**: after
renaming \`slack\` to \`slack-team\`, copy each inbox's \`contacts.slack\` to
\`contacts.slack-team\` (until then its messages are undeliverable there,
kept and redrivable).
`;

/** The reference as Markdown (of the service's schema unless another is given). Throws if a key has no description. */
export function renderConfigReference(schema: z.ZodType = configSchema): string {
  const root = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  const sections: string[] = [INTRO];
  renderObject('Top level', '', root, sections);
  return `${sections.join('\n').trimEnd()}\n`;
}

function renderObject(title: string, path: string, schema: JsonSchema, sections: string[], intro?: string): void {
  const rows: string[] = [];
  const later: (() => void)[] = [];
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const fieldPath = path === '' ? key : `${path}.${key}`;
    const required = schema.required?.includes(key) === true;
    const description = describe(fieldPath, field);
    if (hasProperties(field)) {
      rows.push(row(fieldPath, `object, [below](#${anchor(fieldPath)})`, field, required, description));
      later.push(() => renderObject(`\`${fieldPath}\``, fieldPath, field, sections, description));
    } else if (isRecord(field)) {
      const entry = `${fieldPath}.<name>`;
      rows.push(row(fieldPath, `object: name → [entry](#${anchor(entry)})`, field, required, description));
      later.push(() => renderRecord(entry, field, sections));
    } else {
      rows.push(row(fieldPath, typeOf(field), field, required, description));
    }
  }
  sections.push(`## ${title}\n`);
  if (intro !== undefined) sections.push(`${intro}\n`);
  sections.push('| key | type | default | what it is |', '| --- | --- | --- | --- |', ...rows, '');
  for (const render of later) render();
}

/** A record of named entries (sources): the name's rule, then each variant of the entry. */
function renderRecord(path: string, schema: JsonSchema, sections: string[]): void {
  const value = schema.additionalProperties as JsonSchema;
  const names = schema.propertyNames?.pattern === undefined ? '' : ` Names match \`${schema.propertyNames.pattern}\`.`;
  sections.push(`## \`${path}\`\n`, `${describe(path.replace(/\.<name>$/, ''), schema)}${names}\n`);
  for (const variant of value.oneOf ?? [value]) {
    const type = variant.properties?.type?.const;
    const rows = Object.entries(variant.properties ?? {}).map(([key, field]) =>
      row(key, typeOf(field), field, variant.required?.includes(key) === true, key === 'type' ? 'Which kind of sender this is.' : describe(`${path}.${key}`, field)),
    );
    // An entry with no kinds (prices.<model id>) is described once, under no kind's heading.
    if (type === undefined) sections.push(`${describe(path, variant)}\n`);
    else sections.push(`### \`"type": ${JSON.stringify(type)}\`\n`, `${describe(`${path} (${String(type)})`, variant)}\n`);
    sections.push('| key | type | default | what it is |', '| --- | --- | --- | --- |', ...rows, '');
  }
}

function row(key: string, type: string, field: JsonSchema, required: boolean, description: string): string {
  const fallback = required ? 'required' : '—';
  const value = field.default === undefined ? fallback : `\`${JSON.stringify(field.default)}\``;
  // A | splits a table cell even inside backticks (GitHub's tables): escaped, it shows as itself.
  return `| ${[`\`${key}\``, type, value, description].map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}

function typeOf(field: JsonSchema): string {
  if (field.const !== undefined) return `\`${JSON.stringify(field.const)}\``;
  if (field.enum !== undefined) return `one of ${field.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}`;
  if (field.type === 'string') {
    if (field.format === 'uri') return 'URL';
    if (field.pattern !== undefined) return `string matching \`${field.pattern}\``;
    return field.minLength !== undefined && field.minLength > 1 ? `string (${field.minLength}+ characters)` : 'string';
  }
  if (field.type === 'integer' || field.type === 'number') {
    const bounds: string[] = [];
    if (field.exclusiveMinimum !== undefined) bounds.push(`> ${field.exclusiveMinimum}`);
    if (field.minimum !== undefined) bounds.push(`≥ ${field.minimum}`);
    if (field.maximum !== undefined && field.maximum < Number.MAX_SAFE_INTEGER) bounds.push(`≤ ${field.maximum}`);
    if (field.exclusiveMaximum !== undefined) bounds.push(`< ${field.exclusiveMaximum}`);
    return bounds.length === 0 ? field.type : `${field.type}, ${bounds.join(', ')}`;
  }
  if (field.type === 'object') return '`{}`';
  // A nullable field (z.nullable()): its kind, or null.
  const kinds = field.anyOf?.filter((kind) => kind.type !== 'null');
  if (kinds?.length === 1 && field.anyOf!.length === 2) return `${typeOf(kinds[0]!)}, or \`null\``;
  return field.type ?? 'any';
}

function describe(path: string, field: JsonSchema): string {
  if (field.description === undefined || field.description.trim() === '') {
    throw new Error(`config key ${path} has no description: add .describe('…') to it in src/config/schema.ts`);
  }
  return field.description;
}

const hasProperties = (field: JsonSchema): boolean => field.type === 'object' && Object.keys(field.properties ?? {}).length > 0;
const isRecord = (field: JsonSchema): boolean => field.type === 'object' && typeof field.additionalProperties === 'object';

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to dashes. */
function anchor(path: string): string {
  return path.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = renderConfigReference();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(CONFIGURATION_MD, 'utf8');
    } catch {
      // Missing: out of date.
    }
    if (current !== text) {
      process.stderr.write('docs/configuration.md is out of date: run npm run docs:config\n');
      process.exitCode = 1;
    }
  } else {
    writeFileSync(CONFIGURATION_MD, text);
    process.stdout.write(`wrote ${CONFIGURATION_MD}\n`);
  }
}
