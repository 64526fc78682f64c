/**
 * claudeAgentSdk against the Anthropic fake, through the credential proxy the
 * family starts in front of it (Claude Code gets its key only there): a
 * Claude Code child per run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeAgentSdk } from '../../src/adapters/claude-agent-sdk/index.js';

export default claudeAgentSdk({ name: 'bench-claude-agent-sdk', options: { model: 'claude-fake' }, workDir: mkdtempSync(join(tmpdir(), 'vigil-bench-sdk-')) });
