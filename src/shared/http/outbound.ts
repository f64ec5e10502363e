// Which addresses the service's own calls (endpoints, webhooks, model providers) may reach
// (docs/access.md#outbound-calls). The address is checked where the connection is made, after DNS:
// a name that resolves (or is rebound) to a private address, or a redirect to one, is refused as
// the address itself is, since every hop of a redirect connects through the same check.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { ValidationError } from '../errors.js';

/** A call refused by the outbound policy: permanent, its message says why. */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
  readonly code = 'ASSAY_OUTBOUND_REFUSED';
}

export interface OutboundSettings {
  /** With auth on only public addresses are reached; with auth off only link-local ones are refused. */
  authEnabled: boolean;
  /** ASSAY_OUTBOUND_ALLOW: host names, addresses and CIDRs reached whatever their range. */
  allow: readonly string[];
}

/** ipaddr.js's ranges for public addresses; every other range (loopback, private, …) is not. */
const PUBLIC_RANGE = 'unicast';

/** How long saving a URL waits for its name to resolve before leaving the check to the call. */
const SAVE_LOOKUP_MS = 2_000;

export class OutboundPolicy {
  private readonly names: Set<string>;
  private readonly cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  constructor(private readonly settings: OutboundSettings) {
    this.names = new Set(settings.allow.filter((entry) => !entry.includes('/')).map((entry) => entry.toLowerCase()));
    this.cidrs = settings.allow.filter((entry) => entry.includes('/')).map((entry) => ipaddr.parseCIDR(entry));
  }

  /**
   * Why a connection to `address` (an IP address, resolved from `host` as the URL named it) is
   * refused, or null when it may be made. IPv4-mapped IPv6 addresses are judged as the IPv4 one.
   */
  refusal(host: string, address: string): string | null {
    const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    if (this.names.has(name) || !ipaddr.isValid(address)) return null;
    const ip = ipaddr.process(address);
    if (this.names.has(ip.toString()) || this.cidrs.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))) return null;
    const range = ip.range();
    if (range === PUBLIC_RANGE) return null;
    if (!this.settings.authEnabled && range !== 'linkLocal') return null;
    const shown = name === ip.toString() ? name : `${name} (${ip.toString()})`;
    const rule = this.settings.authEnabled ? 'with auth on only public addresses are called' : 'link-local addresses (cloud metadata) are never called';
    return `Calling ${shown} was refused: it is a ${range} address, and ${rule}; ASSAY_OUTBOUND_ALLOW can list it (docs/access.md#outbound-calls)`;
  }

  /**
   * Why a URL saved to be called later (an endpoint's `uri`, a `webhook_url`) would be refused
   * now, or null: `refusal` of its literal address, or of every address its name resolves to.
   * A name that does not resolve (yet, or within a moment) is judged when it is called.
   */
  async urlRefusal(url: string, lookup: Lookup = dnsLookup): Promise<string | null> {
    const host = new URL(url).hostname;
    const literal = host.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal)) return this.refusal(literal, literal);
    const addresses = await new Promise<string[]>((resolve) => {
      const timer = setTimeout(() => resolve([]), SAVE_LOOKUP_MS);
      lookup(host, { all: true }, (error, found) => {
        clearTimeout(timer);
        resolve(error ? [] : typeof found === 'string' ? [found] : found.map((one) => one.address));
      });
    });
    for (const address of addresses) {
      const why = this.refusal(host, address);
      if (why) return why;
    }
    return null;
  }

  /** Refuses (422 at `loc`) a URL being saved that `urlRefusal` would refuse. */
  async checkSaved(url: string, loc: (string | number)[]): Promise<void> {
    const why = await this.urlRefusal(url);
    if (why) throw ValidationError.at(loc, why, 'value_error');
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type Lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A dispatcher whose every connection is checked by `policy`: literal addresses before
 * connecting, names once resolved (by `lookup`, DNS by default; tests give their own), any of
 * their addresses refused refusing the call. It follows no redirect itself: a redirect
 * interceptor composed over it (client.ts) connects each hop through the same check.
 */
export function outboundDispatcher(policy: OutboundPolicy, lookup: Lookup = dnsLookup): Dispatcher {
  const checkedLookup: Lookup = (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const found = typeof address === 'string' ? [address] : address.map((one) => one.address);
      for (const one of found) {
        const why = policy.refusal(hostname, one);
        if (why) return callback(new OutboundRefusedError(why), address, family);
      }
      callback(null, address, family);
    });
  };
  const connect = buildConnector({ lookup: checkedLookup });
  return new Agent({
    connect: (options, callback) => {
      // Node resolves no literal address, so the lookup above never sees one.
      const literal = options.hostname.replace(/^\[(.*)\]$/, '$1');
      const why = isIP(literal) ? policy.refusal(literal, literal) : null;
      if (why) return callback(new OutboundRefusedError(why), null);
      return connect(options, callback);
    },
  });
}

/** Whether `error` (or its cause, as fetch wraps it) is a refusal of the outbound policy. */
export function outboundRefusal(error: unknown): OutboundRefusedError | null {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof OutboundRefusedError) return current;
  }
  return null;
}
