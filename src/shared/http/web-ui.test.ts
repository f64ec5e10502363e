// The web UI's assets as the build compressed them (docs/ui.md#build): brotli or gzip by the
// request's Accept-Encoding, the file as built otherwise, with the same cache headers either way.
// The tests' global setup builds web/dist (scripts/build-web.mjs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebUi, webDist } from './web-ui.js';

const server = Fastify();
/** The script the page loads first. */
const entry = /src="(\/assets\/[^"]+\.js)"/.exec(readFileSync(join(webDist, 'index.html'), 'utf8'))![1];
const built = readFileSync(join(webDist, entry));

beforeAll(async () => {
  await registerWebUi(server);
  await server.ready();
});
afterAll(() => server.close());

describe('the assets', () => {
  it('sends the brotli file to a browser that accepts it', async () => {
    const response = await server.inject({ url: entry, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.rawPayload.length).toBeLessThan(built.length / 2);
    expect(brotliDecompressSync(response.rawPayload).equals(built)).toBe(true);
  });

  it('sends gzip to a browser that takes gzip alone', async () => {
    const response = await server.inject({ url: entry, headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(response.rawPayload).equals(built)).toBe(true);
  });

  it('sends the file as built when no encoding is accepted', async () => {
    const response = await server.inject({ url: entry, headers: { 'accept-encoding': 'identity' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.rawPayload.equals(built)).toBe(true);
    const bare = await server.inject({ url: entry });
    expect(bare.headers['content-encoding']).toBeUndefined();
    expect(bare.rawPayload.equals(built)).toBe(true);
  });
});
