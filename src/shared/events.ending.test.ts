import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createAssayEvents, endingWith } from './events.js';

/** A subscription's generator as the GraphQL fields write them: the topic's events until it ends. */
function follow(updates: AsyncIterator<[string]>, ended: { finally: boolean }) {
  return (async function* () {
    try {
      for (;;) {
        const next = await updates.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      ended.finally = true;
    }
  })();
}

const settledWithin = (promise: Promise<unknown>, ms: number) => Promise.race([promise.then(() => true), sleep(ms).then(() => false)]);

describe('endingWith', () => {
  it('ends a stream waiting for an event at once, running its finally', async () => {
    const events = createAssayEvents();
    const updates = events.subscribe('traces:stored', 'p')[Symbol.asyncIterator]() as AsyncIterator<[string]>;
    const ended = { finally: false };
    const stream = endingWith(updates, follow(updates, ended));
    const waiting = stream.next();
    expect(await settledWithin(stream.return!(), 1000)).toBe(true);
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(ended.finally).toBe(true);
  });

  it('is needed: a bare generator waiting for an event cannot be returned until one comes', async () => {
    const events = createAssayEvents();
    const updates = events.subscribe('traces:stored', 'p')[Symbol.asyncIterator]() as AsyncIterator<[string]>;
    const ended = { finally: false };
    const stream = follow(updates, ended);
    const waiting = stream.next();
    const returned = stream.return(undefined);
    expect(await settledWithin(returned, 200)).toBe(false);
    expect(ended.finally).toBe(false);
    events.publish('traces:stored', 'p', ['t1']);
    expect(await waiting).toEqual({ done: false, value: ['t1'] });
    await returned;
    expect(ended.finally).toBe(true);
  });

  it('passes the events through while open', async () => {
    const events = createAssayEvents();
    const updates = events.subscribe('traces:stored', 'p')[Symbol.asyncIterator]() as AsyncIterator<[string]>;
    const stream = endingWith(updates, follow(updates, { finally: false }));
    const first = stream.next();
    events.publish('traces:stored', 'p', ['a']);
    events.publish('traces:stored', 'other', ['b']);
    events.publish('traces:stored', 'p', ['c']);
    expect(await first).toEqual({ done: false, value: ['a'] });
    expect(await stream.next()).toEqual({ done: false, value: ['c'] });
    await stream.return!();
  });
});
