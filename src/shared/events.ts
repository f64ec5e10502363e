// Events: operations wake the evaluation engine through them, GraphQL subscriptions stream them to
// clients (Yoga's pub/sub, which speaks SSE), and caches of database state drop what changed. On
// SQLite (one process) they stay in the process; on PostgreSQL every instance's events reach the
// others through LISTEN/NOTIFY (PostgresEventTarget, docs/operations.md#several-instances).
import { randomUUID } from 'node:crypto';
import { createPubSub, type PubSubEventTarget } from 'graphql-yoga';
import pg from 'pg';

/**
 * The topics and what each event carries. A domain declares topics of its own by augmenting this
 * interface beside the code that publishes them (evaluation-engine/events.ts), as `Services` is
 * augmented (docs/architecture.md#state-lives-in-services): plumbing does not import the domain.
 */
export interface AssayTopics {
  /** Spans of these traces were committed in this project (the trace list's live updates). */
  'traces:stored': [projectId: string, traceIds: string[]];
  /** This API key was revoked or changed: forget what was cached of it. */
  'apiKeys:changed': [keyId: string];
  /** A price of this project changed: forget its cached price list. */
  'prices:changed': [projectId: string];
  /**
   * Events of other instances may have been missed (the listening connection was lost and is back):
   * drop every cache of database state. Raised by the transport, in this process only.
   */
  'events:missed': [at: number];
}

// Yoga's pub/sub needs an index signature, which an interface has not: this mapped copy has one.
type Topics = { [Topic in keyof AssayTopics]: AssayTopics[Topic] };

export type AssayEvents = ReturnType<typeof createAssayEvents>;

/** The events of one process; `transport` carries them to and from other instances (PostgresEventTarget). */
export function createAssayEvents(transport?: PostgresEventTarget) {
  const pubsub = createPubSub<Topics>(transport ? { eventTarget: transport as unknown as PubSubEventTarget<Topics> } : undefined);
  return {
    ...pubsub,
    /** Resolves once the events published so far were handed to the other instances. */
    flush: (): Promise<void> => transport?.flush() ?? Promise.resolve(),
  };
}

/** Topics whose events carry one value (those a `follow` can take). */
type SingleTopic = { [K in keyof Topics]: Topics[K] extends [unknown] ? K : never }[keyof Topics];

/** Calls `handle` with every event of `topic` from now on, until the answer (a stop) is called. */
export function follow<T extends SingleTopic>(events: AssayEvents, topic: T, handle: (value: Topics[T][0]) => void): () => void {
  // Any one-value topic subscribes this way; the cast names one for the type checker.
  const iterator = events.subscribe(topic as 'apiKeys:changed')[Symbol.asyncIterator]();
  let open = true;
  void (async () => {
    while (open) {
      const next = await iterator.next();
      if (next.done) return;
      handle(next.value);
    }
  })();
  return () => {
    open = false;
    void iterator.return?.();
  };
}

/**
 * A subscription's stream: `stream`, a generator reading the events of `updates`, whose `return`
 * (the client left) ends `updates` first. A generator waiting in `updates.next()` cannot be
 * returned until that settles, so without this a closed subscription kept its listener until the
 * topic's next event came, and idle topics piled them up (docs/graphql.md#subscriptions-end-at-once).
 */
export function endingWith<T>(updates: AsyncIterator<unknown>, stream: AsyncGenerator<T>): AsyncIterableIterator<T> {
  return {
    next: () => stream.next(),
    return: async () => {
      await updates.return?.();
      return stream.return(undefined);
    },
    throw: (error: unknown) => stream.throw(error),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** The channel every instance of one database LISTENs on. */
const CHANNEL = 'assay_events';
/** NOTIFY refuses payloads of 8000 bytes or more; a message over this is split. */
const PAYLOAD_LIMIT = 7900;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;

interface Message {
  /** The instance that sent it (its own messages come back to it too, and are skipped). */
  o: string;
  /** An event: its topic, with its id (`evaluation:progress:<id>`), and its value. */
  t?: string;
  d?: unknown;
  /** A sync: every other instance answers with an ack once it has dispatched what came before. */
  s?: number;
  /** An ack of the sync `s` of the instance `to`. */
  a?: { to: string; s: number };
}

/** The listening connections' application_name, with the instance's id: an instance counts the others by it. */
const LISTENER_NAME = 'assay-events:';
/** How long `flush` waits for the other instances' acks before it answers anyway (one may be dead). */
const SYNC_WAIT_MS = 1000;

/**
 * An EventTarget whose events also go to every other instance on the same PostgreSQL: a dispatch
 * reaches this process's listeners at once, as Yoga's default target does, and is sent with
 * `pg_notify` (in order, batched while one send is under way); one dedicated connection LISTENs and
 * dispatches the other instances' events here. A lost connection is opened again with backoff, and
 * `events:missed` is raised here once it is back, since what was sent meanwhile is gone.
 *
 * `flush` sends a sync after the events and waits until every other listening instance answered
 * it: each has then dispatched the events (a revoked key is out of its cache), so a request that
 * follows finds them applied wherever it goes.
 */
export class PostgresEventTarget extends EventTarget {
  private readonly origin = randomUUID();
  /** The listening connection, or the one being opened. */
  private current: pg.Client | null = null;
  private reconnectMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private listening = false;
  private outbox: string[] = [];
  private sending: Promise<void> = Promise.resolve();
  private syncs = 0;
  /** Syncs waiting for acks: how many are still to come, and what ends the wait. */
  private readonly awaited = new Map<number, { left: number; done: () => void }>();

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly onError: (error: unknown, message: string) => void,
  ) {
    super();
  }

  /** Connects the listening connection; a failure is retried in the background. */
  async start(): Promise<void> {
    await this.connect(false);
  }

  override dispatchEvent(event: Event): boolean {
    const delivered = super.dispatchEvent(event);
    try {
      this.enqueue(payloads({ o: this.origin, t: event.type, d: (event as CustomEvent).detail }));
    } catch (error) {
      this.onError(error, 'an event could not be sent to the other instances');
    }
    return delivered;
  }

  /** Resolves once every other listening instance has dispatched the events sent so far (or after SYNC_WAIT_MS). */
  async flush(): Promise<void> {
    if (!this.listening) return this.sending;
    const s = ++this.syncs;
    let others: number;
    try {
      const counted = await this.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND starts_with(application_name, $1) AND application_name <> $2`,
        [LISTENER_NAME, LISTENER_NAME + this.origin],
      );
      others = counted.rows[0].n;
    } catch (error) {
      this.onError(error, 'counting the other instances failed');
      return this.sending;
    }
    if (others === 0) return this.sending;
    const acked = new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), SYNC_WAIT_MS);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        this.awaited.delete(s);
        resolve();
      };
      this.awaited.set(s, { left: others, done });
    });
    this.enqueue([JSON.stringify({ o: this.origin, s } satisfies Message)]);
    await acked;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    for (const wait of [...this.awaited.values()]) wait.done();
    await this.sending;
    await this.current?.end().catch(() => undefined);
  }

  private enqueue(messages: string[]): void {
    this.outbox.push(...messages);
    this.sending = this.sending.then(() => this.send());
  }

  private async send(): Promise<void> {
    if (this.outbox.length === 0) return;
    const batch = this.outbox;
    this.outbox = [];
    try {
      // One statement, one transaction: delivered together, in this order.
      await this.pool.query('SELECT pg_notify($1, m) FROM unnest($2::text[]) WITH ORDINALITY AS u(m, n) ORDER BY n', [CHANNEL, batch]);
    } catch (error) {
      // Events are hints (leases are polled, caches expire): a lost one delays, never corrupts.
      this.onError(error, 'sending events to the other instances failed');
    }
  }

  private async connect(reconnecting: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, application_name: LISTENER_NAME + this.origin });
    this.current = client;
    client.on('notification', (notification) => this.receive(notification.payload));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.reconnectMs = RECONNECT_MIN_MS;
    this.listening = true;
    if (reconnecting) super.dispatchEvent(new CustomEvent('events:missed', { detail: Date.now() }));
  }

  private lost(client: pg.Client, error: unknown): void {
    // Both 'error' and 'end' may come, and from a connection already replaced: act once, for the current one.
    if (this.closed || client !== this.current || this.reconnectTimer) return;
    this.listening = false;
    this.onError(error ?? new Error('connection ended'), 'the connection listening for other instances’ events was lost; reconnecting');
    client.end().catch(() => undefined);
    const delay = this.reconnectMs;
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect(true);
    }, delay);
    this.reconnectTimer.unref();
  }

  private receive(payload: string | undefined): void {
    if (!payload) return;
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch {
      return;
    }
    if (message.o === this.origin) return;
    if (message.a) {
      const wait = message.a.to === this.origin ? this.awaited.get(message.a.s) : undefined;
      if (wait && --wait.left === 0) wait.done();
    } else if (message.s !== undefined) {
      // Answered after this turn's microtasks, where subscribers act on the events dispatched before it.
      const ack: Message = { o: this.origin, a: { to: message.o, s: message.s } };
      setImmediate(() => this.enqueue([JSON.stringify(ack)]));
    } else if (typeof message.t === 'string') {
      super.dispatchEvent(new CustomEvent(message.t, { detail: message.d }));
    }
  }
}

/** The message as NOTIFY payloads: one, or, when too long and its detail is a list, the list in parts. */
function payloads(message: Message): string[] {
  const text = JSON.stringify(message);
  if (Buffer.byteLength(text) <= PAYLOAD_LIMIT) return [text];
  if (!Array.isArray(message.d) || message.d.length < 2) throw new Error(`the event ${message.t} is too long to send to other instances`);
  const half = Math.ceil(message.d.length / 2);
  return [...payloads({ ...message, d: message.d.slice(0, half) }), ...payloads({ ...message, d: message.d.slice(half) })];
}
