/**
 * claudeAgent: the tool loop (../tool-loop.ts) on Claude through the
 * Messages API. The session is the conversation; tools are permission-
 * checked; a call that needs a person is asked, saved mid-call, and
 * resumed by the answer.
 */
import type { Agent } from '../agent.js';
import type { Permissions } from '../permissions.js';
import { toolAgent, type ToolAgentOptions } from '../tool-loop.js';
import type { Tool } from '../tools.js';
import { claudeModel, type ClaudeModelOptions } from './claude-model.js';

export interface ClaudeAgentOptions extends ClaudeModelOptions {
  name?: string;
  tools?: readonly Tool[];
  permissions?: Permissions;
  render?: ToolAgentOptions['render'];
  historyTurns?: number;
  maxSteps?: number;
}

export function claudeAgent(options: ClaudeAgentOptions): Agent {
  const { name, tools, permissions, render, historyTurns, maxSteps, ...model } = options;
  return toolAgent({
    model: claudeModel(model),
    ...(name === undefined ? {} : { name }),
    ...(tools === undefined ? {} : { tools }),
    ...(permissions === undefined ? {} : { permissions }),
    ...(render === undefined ? {} : { render }),
    ...(historyTurns === undefined ? {} : { historyTurns }),
    ...(maxSteps === undefined ? {} : { maxSteps }),
  });
}
