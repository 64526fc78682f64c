/** The peer: Vigil's own tool loop on Claude (claudeAgent) against the Anthropic fake (FAKE_ANTHROPIC_URL). */
import { claudeAgent } from '../../src/agent/claude/index.js';
import { fakeAnthropicUrl } from './fake-urls.js';

export default claudeAgent({ name: 'bench-claude', model: 'claude-fake', apiKey: 'sk-ant-fake', baseURL: fakeAnthropicUrl() });
