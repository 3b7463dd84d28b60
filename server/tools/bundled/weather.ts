// Bundled plugin `weather`: `weather.lookup` returns fixture weather derived from a hash of the city name (no network).
import { createHash } from 'node:crypto';
import { ToolError } from '../../errors.ts';
import type { CodeModePlugin } from '../plugins.ts';

const CONDITIONS = ['clear', 'partly cloudy', 'cloudy', 'light rain', 'rain', 'thunderstorms', 'fog', 'snow', 'windy'] as const;

export interface WeatherReport {
  city: string;
  tempC: number;
  condition: (typeof CONDITIONS)[number];
  humidityPct: number;
  windKph: number;
  /** Always "fixture": this is deterministic demo data, not an observation. */
  source: 'fixture';
}

/** Same city (ignoring case and surrounding spaces), same weather. */
export function fixtureWeather(city: string): WeatherReport {
  const name = city.trim().replace(/\s+/g, ' ');
  const digest = createHash('sha256').update(name.toLowerCase()).digest();
  const at = (i: number): number => digest[i] ?? 0;
  return {
    city: name,
    tempC: Math.round((-10 + (at(0) / 255) * 45) * 10) / 10,
    condition: CONDITIONS[at(1) % CONDITIONS.length] ?? 'clear',
    humidityPct: 20 + (at(2) % 76),
    windKph: at(3) % 61,
    source: 'fixture',
  };
}

export function createWeatherPlugin(): CodeModePlugin {
  return {
    id: 'weather',
    tools: [
      {
        name: 'weather.lookup',
        description: 'Current weather for a city (fixture data: deterministic per city name, not a real observation).',
        source: 'bundled_plugin',
        owner: 'weather',
        replaySafe: true,
        inputSchema: {
          type: 'object',
          properties: { city: { type: 'string', minLength: 1, maxLength: 100, description: 'City name, e.g. "Lisbon".' } },
          required: ['city'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: {
            city: { type: 'string' },
            tempC: { type: 'number' },
            condition: { type: 'string', enum: [...CONDITIONS] },
            humidityPct: { type: 'integer' },
            windKph: { type: 'integer' },
            source: { type: 'string', enum: ['fixture'] },
          },
          required: ['city', 'tempC', 'condition', 'humidityPct', 'windKph', 'source'],
          additionalProperties: false,
        },
        async execute(input) {
          const city = (input as { city: string }).city;
          if (!city.trim()) throw new ToolError('weather.lookup: "city" is blank; pass a city name such as "Lisbon".', 'invalid_input');
          return fixtureWeather(city);
        },
      },
    ],
  };
}
