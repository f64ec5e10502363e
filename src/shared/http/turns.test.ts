import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterRequestsSent, onceAfterRequestsSent } from './turns.js';

describe('afterRequestsSent', () => {
  let server: Server;
  let url: string;
  const agent = new Agent({ connections: 1 });

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // The connection is kept alive: the requests below reuse it, as an evaluator's calls do.
    await (await request(url, { method: 'POST', body: 'warm', dispatcher: agent })).body.text();
  });

  afterAll(async () => {
    await agent.close();
    server.close();
  });

  it('runs after a request made later in this turn was written on a kept-alive connection, where a plain setImmediate runs before it', async () => {
    const order: string[] = [];
    const sent = () => order.push('request written');
    subscribe('undici:request:bodySent', sent);
    try {
      // As the runner does when an evaluator's answer frees a slot: its follow-up work is scheduled,
      // and the next call's request is made a few awaits later (its evaluator prepares the call).
      let reply: Promise<string> | undefined;
      await new Promise<void>((resolve) => {
        setTimeout(() => {
          setImmediate(() => order.push('setImmediate'));
          afterRequestsSent(() => {
            order.push('afterRequestsSent');
            resolve();
          });
          void Promise.resolve().then(() => {
            reply = request(url, { method: 'POST', body: 'next call', dispatcher: agent }).then((response) => response.body.text());
          });
        }, 1);
      });
      expect(await reply).toBe('ok');
    } finally {
      unsubscribe('undici:request:bodySent', sent);
    }
    expect(order).toEqual(['setImmediate', 'request written', 'afterRequestsSent']);
  });

  it('runs work asked several times in a turn once, and again when asked after it ran', async () => {
    let runs = 0;
    const soon = onceAfterRequestsSent(() => runs++);
    soon();
    soon();
    soon();
    await new Promise<void>((resolve) => afterRequestsSent(resolve));
    expect(runs).toBe(1);
    soon();
    await new Promise<void>((resolve) => afterRequestsSent(resolve));
    expect(runs).toBe(2);
  });
});
