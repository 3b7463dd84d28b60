// External demo plugin `edge-names`: tools whose exact names are awkward in JavaScript (`delete`, `catalog`, `2fa`).
//
// `delete` is a reserved word, `catalog` collides with the guest's catalog
// global and `2fa` starts with a digit, so the catalog must project all three
// to other callable names. Each tool still does a small real job.
import { createHmac } from 'node:crypto';

/** RFC 6238 defaults: 30-second steps, 6 digits, HMAC-SHA1. */
const TOTP_STEP_SECONDS = 30;
const TOTP_DIGITS = 6;

const PRODUCTS = [
  { sku: 'BK-100', name: 'City e-bike', category: 'bikes', priceCents: 189900 },
  { sku: 'BK-220', name: 'Cargo e-bike', category: 'bikes', priceCents: 349000 },
  { sku: 'HL-010', name: 'Helmet, reflective', category: 'accessories', priceCents: 5990 },
  { sku: 'LK-300', name: 'Folding lock', category: 'accessories', priceCents: 8900 },
  { sku: 'BT-500', name: '500 Wh spare battery', category: 'parts', priceCents: 54900 },
  { sku: 'TY-028', name: 'Studded winter tyre 28"', category: 'parts', priceCents: 4490 },
];
const CATEGORIES = [...new Set(PRODUCTS.map((p) => p.category))];

/** RFC 6238 time-based code for `secret` (its UTF-8 bytes) at `atMs`. @param {string} secret @param {number} atMs */
export function totp(secret, atMs) {
  const counter = Math.floor(atMs / 1000 / TOTP_STEP_SECONDS);
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const hmac = createHmac('sha1', Buffer.from(secret, 'utf8')).update(message).digest();
  // an HMAC-SHA1 digest is 20 bytes: its last byte is there
  const offset = /** @type {number} */ (hmac[hmac.length - 1]) & 0x0f;
  const binary = (hmac.readUInt32BE(offset) & 0x7fffffff) % 10 ** TOTP_DIGITS;
  return String(binary).padStart(TOTP_DIGITS, '0');
}

export default {
  id: 'edge-names',
  // A function, so every registry load gets its own key map.
  tools() {
    const keys = new Map([
      ['draft-1', 'Quarterly report, first draft'],
      ['draft-2', 'Quarterly report, second draft'],
      ['cache:weather', 'Cached weather for Lisbon'],
    ]);
    return [
      {
        name: 'delete',
        description: 'Delete a key from the plugin\'s key store; returns { deleted, remaining } (keys left). Seeded with draft-1, draft-2, cache:weather.',
        inputSchema: {
          type: 'object',
          properties: { key: { type: 'string', minLength: 1, description: 'Key to delete.' } },
          required: ['key'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: { deleted: { type: 'boolean' }, remaining: { type: 'array', items: { type: 'string' } } },
          required: ['deleted', 'remaining'],
          additionalProperties: false,
        },
        executionMode: 'sequential',
        /** @param {{ key: string }} input */
        async execute(input) {
          const deleted = keys.delete(input.key);
          return { deleted, remaining: [...keys.keys()] };
        },
      },
      {
        name: 'catalog',
        description: 'List products of the shop\'s product catalog, optionally one category; prices in cents.',
        inputSchema: {
          type: 'object',
          properties: { category: { type: 'string', enum: CATEGORIES, description: 'Only this category.' } },
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: {
            products: {
              type: 'array',
              items: {
                type: 'object',
                properties: { sku: { type: 'string' }, name: { type: 'string' }, category: { type: 'string' }, priceCents: { type: 'integer' } },
                required: ['sku', 'name', 'category', 'priceCents'],
                additionalProperties: false,
              },
            },
          },
          required: ['products'],
          additionalProperties: false,
        },
        replaySafe: true,
        /** @param {{ category?: string } | undefined} input */
        async execute(input) {
          const category = input?.category;
          return { products: PRODUCTS.filter((p) => !category || p.category === category).map((p) => ({ ...p })) };
        },
      },
      {
        name: '2fa',
        description: `Compute a time-based one-time code (RFC 6238: HMAC-SHA1, ${TOTP_STEP_SECONDS} s steps, ${TOTP_DIGITS} digits) from a secret; atMs defaults to now.`,
        inputSchema: {
          type: 'object',
          properties: {
            secret: { type: 'string', minLength: 1, description: 'Shared secret (its UTF-8 bytes are the key).' },
            atMs: { type: 'integer', minimum: 0, description: 'Epoch milliseconds to compute the code for.' },
          },
          required: ['secret'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: { code: { type: 'string' }, validForMs: { type: 'integer' } },
          required: ['code', 'validForMs'],
          additionalProperties: false,
        },
        /** @param {{ secret: string, atMs?: number }} input */
        async execute(input) {
          const atMs = input.atMs ?? Date.now();
          const stepMs = TOTP_STEP_SECONDS * 1000;
          return { code: totp(input.secret, atMs), validForMs: stepMs - (atMs % stepMs) };
        },
      },
    ];
  },
};
