// Bundled plugins by id (`plugins.bundled` in the config); each call makes a fresh instance with its own state.
import type { CodeModePlugin } from '../plugins.ts';
import { createGuardPlugin } from './guard.ts';
import { createLlmTaskPlugin } from './llm-task.ts';
import { createNotesPlugin } from './notes.ts';
import { createWeatherPlugin } from './weather.ts';

export const BUNDLED_PLUGINS: Readonly<Record<string, () => CodeModePlugin>> = {
  'llm-task': createLlmTaskPlugin,
  weather: createWeatherPlugin,
  notes: createNotesPlugin,
  guard: createGuardPlugin,
};

export const BUNDLED_PLUGIN_IDS = Object.keys(BUNDLED_PLUGINS);
