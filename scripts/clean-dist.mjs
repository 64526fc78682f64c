// tsc never deletes what it emitted for a file since removed or renamed:
// without a clean build, `npm pack` would ship those stale modules.
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
