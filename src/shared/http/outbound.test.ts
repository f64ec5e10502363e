// The outbound policy (docs/access.md#outbound-calls): which addresses it refuses, and that the
// refusal happens where the connection is made (literal addresses, names after DNS, every hop of a
// redirect). Only loopback servers are ever connected to; other addresses are classified, or
// "resolved" by a test lookup whose answer is refused before any connection is attempted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError } from '../retry.js';
import { postJson } from './client.js';
import { type Lookup, OutboundPolicy, outboundDispatcher } from './outbound.js';

/** The host part of `url` as the URL parser (and so undici) normalises it. */
const hostOf = (url: string) => new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');

describe('OutboundPolicy', () => {
  const on = new OutboundPolicy({ authEnabled: true, allow: [] });
  const off = new OutboundPolicy({ authEnabled: false, allow: [] });

  it('refuses with auth on every address that is not public, in any spelling of it', () => {
    const metadata = ['http://169.254.169.254/', 'http://2852039166/', 'http://0xa9fea9fe/', 'http://0251.0376.0251.0376/', 'http://[::ffff:169.254.169.254]/'];
    for (const url of metadata) expect(on.refusal(hostOf(url), hostOf(url)), url).toMatch(/linkLocal address/);
    const others = [
      '127.0.0.1',
      '127.9.9.9',
      '::1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      'fd00::1',
      'fe80::1',
      '0.0.0.0',
      '::',
      '100.64.0.1',
      '::ffff:10.0.0.1',
    ];
    for (const address of others) expect(on.refusal(address, address), address).toMatch(/refused: it is a \w+ address, and with auth on/);
    expect(on.refusal('localhost', '127.0.0.1')).toContain('localhost (127.0.0.1)');
    for (const address of ['93.184.216.34', '2606:4700::1111']) expect(on.refusal(address, address)).toBeNull();
  });

  it('with auth off, allows loopback and private addresses but not link-local ones (cloud metadata)', () => {
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '192.168.1.1', 'fd00::1']) expect(off.refusal(address, address), address).toBeNull();
    expect(off.refusal('metadata.google.internal', '169.254.169.254')).toMatch(/link-local addresses \(cloud metadata\) are never called/);
  });

  it('allows what ASSAY_OUTBOUND_ALLOW lists: names as the URL gives them, addresses and CIDRs', () => {
    const listed = new OutboundPolicy({ authEnabled: true, allow: ['models.internal', '10.0.0.0/8', 'fd00::/8', '127.0.0.1'] });
    expect(listed.refusal('models.internal', '192.168.7.7')).toBeNull();
    expect(listed.refusal('10.20.30.40', '10.20.30.40')).toBeNull();
    expect(listed.refusal('a.internal', '::ffff:10.1.1.1')).toBeNull();
    expect(listed.refusal('fd12::1', 'fd12::1')).toBeNull();
    expect(listed.refusal('127.0.0.1', '127.0.0.1')).toBeNull();
    expect(listed.refusal('127.0.0.2', '127.0.0.2')).not.toBeNull();
    expect(listed.refusal('other.internal', '192.168.7.7')).not.toBeNull();
  });
});

describe('outboundDispatcher', () => {
  let first: Server;
  let second: Server;
  let firstUrl: string;
  let secondUrl: string;
  const hits: string[] = [];
  const signal = new AbortController().signal;

  async function listen(server: Server, host: string): Promise<string> {
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return `http://${host}:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    // The second server listens on 127.0.0.2, the first redirects there.
    second = createServer((req, res) => {
      hits.push(`second ${req.url}`);
      res.end('{"ok":true}');
    });
    secondUrl = await listen(second, '127.0.0.2');
    first = createServer((req, res) => {
      hits.push(`first ${req.url}`);
      res.writeHead(307, { location: `${secondUrl}/hop` }).end();
    });
    firstUrl = await listen(first, '127.0.0.1');
  });
  afterAll(() => {
    first.close();
    second.close();
  });

  /** A lookup answering `address` for every name, and counting what it was asked. */
  function fakeDns(address: string, asked: string[]): Lookup {
    return (hostname, options, callback) => {
      asked.push(hostname);
      if (options.all) callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
      else callback(null, address, address.includes(':') ? 6 : 4);
    };
  }

  it('refuses a name that resolves to a metadata address before connecting, as a permanent error saying why', async () => {
    const asked: string[] = [];
    const dispatcher = outboundDispatcher(new OutboundPolicy({ authEnabled: true, allow: [] }), fakeDns('169.254.169.254', asked));
    const call = postJson('http://metadata.google.internal/computeMetadata/v1/', {}, { peer: 'The endpoint', signal, dispatcher });
    await expect(call).rejects.toThrow(PermanentError);
    await expect(call).rejects.toThrow(/metadata\.google\.internal \(169\.254\.169\.254\) was refused: it is a linkLocal address/);
    expect(asked).toEqual(['metadata.google.internal']);
    await dispatcher.close();
  });

  it('refuses a name rebound to loopback with auth on, and reaches it with auth off', async () => {
    const port = new URL(firstUrl).port;
    const asked: string[] = [];
    const on = outboundDispatcher(new OutboundPolicy({ authEnabled: true, allow: [] }), fakeDns('127.0.0.1', asked));
    hits.length = 0;
    await expect(postJson(`http://rebound.test:${port}/`, {}, { peer: 'x', signal, dispatcher: on })).rejects.toThrow(
      /rebound\.test \(127\.0\.0\.1\) was refused/,
    );
    expect(hits).toEqual([]);
    const off = outboundDispatcher(new OutboundPolicy({ authEnabled: false, allow: [] }), fakeDns('127.0.0.1', asked));
    await expect(postJson(`http://rebound.test:${port}/`, {}, { peer: 'x', signal, dispatcher: off })).resolves.toBe('{"ok":true}');
    expect(hits).toEqual(['first /', 'second /hop']);
    await on.close();
    await off.close();
  });

  it('checks every hop of a redirect: an allowed first address cannot lead to a refused one', async () => {
    const dispatcher = outboundDispatcher(new OutboundPolicy({ authEnabled: true, allow: ['127.0.0.1'] }));
    hits.length = 0;
    const call = postJson(`${firstUrl}/start`, {}, { peer: 'The endpoint', signal, dispatcher });
    await expect(call).rejects.toThrow(/127\.0\.0\.2 was refused: it is a loopback address/);
    expect(hits).toEqual(['first /start']);
    const literal = postJson(`http://[::ffff:127.0.0.2]:${new URL(secondUrl).port}/`, {}, { peer: 'x', signal, dispatcher });
    await expect(literal).rejects.toThrow(/::ffff:7f00:2 \(127\.0\.0\.2\) was refused|127\.0\.0\.2 was refused/);
    expect(hits).toEqual(['first /start']);
    await dispatcher.close();
  });
});
