// The core tool source (source "core"): every built-in tool, input-validated, in a fixed order.
import type { GatewayConfig } from '../../config/types.ts';
import type { ToolDefinition } from '../types.ts';
import { withInputValidation } from '../validate.ts';
import { createImageTool } from './image.ts';
import { createShellTool } from './shell.ts';
import { createSleepTool } from './sleep.ts';
import { createToolSearchTools } from './tool-search.ts';
import { createWebTools } from './web.ts';
import { createGrepTool, createReadTool } from './workspace.ts';

export interface CoreToolOptions {
  /** Tool list the Tool Search control tools search when a call carries no `ctx.tools`. */
  getTools?: () => readonly ToolDefinition[];
  /** Override the offline web corpus (tests). */
  webCorpusPath?: string;
}

export function createCoreTools(config: GatewayConfig, options: CoreToolOptions = {}): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  const getTools = options.getTools ?? ((): readonly ToolDefinition[] => tools);
  tools.push(
    createReadTool(),
    createGrepTool(),
    ...createWebTools(options.webCorpusPath ? { corpusPath: options.webCorpusPath } : {}),
    createSleepTool(),
    createImageTool(),
    createShellTool(config),
    ...createToolSearchTools(config, getTools),
  );
  return tools.map(withInputValidation);
}
