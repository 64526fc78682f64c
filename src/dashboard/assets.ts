/**
 * The dashboard's stylesheet and script, read once from the files beside
 * this module (scripts/copy-assets.mjs puts them beside the build). Served
 * by the service itself: the dashboard loads nothing from anywhere else.
 */
import { readFileSync } from 'node:fs';

const FILES: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
};

const cache = new Map<string, string>();

export function dashboardAsset(name: string): { body: string; type: string } | null {
  const type = FILES[name];
  if (type === undefined || !Object.hasOwn(FILES, name)) return null;
  let body = cache.get(name);
  if (body === undefined) {
    body = readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
    cache.set(name, body);
  }
  return { body, type };
}
