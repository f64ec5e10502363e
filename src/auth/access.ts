// Who may call (docs/resources.md#projects-and-access). Without keys, everything is served as the
// default project; that is only allowed by default on a loopback address, where nobody else can
// reach the server.
import { isIP } from 'node:net';
import type { Config } from '../shared/config.js';
import { ConfigError } from '../shared/config.js';

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * API keys are not implemented yet, so a server that would require them refuses to start rather
 * than answer every request with 401.
 */
export function assertAccessMode(config: Pick<Config, 'HOST' | 'ASSAY_AUTH'>): void {
  const keysRequired = config.ASSAY_AUTH === 'on' || (config.ASSAY_AUTH === undefined && !isLoopback(config.HOST));
  if (keysRequired) {
    throw new ConfigError(
      `HOST=${config.HOST} would require API keys, which this version does not issue yet; ` +
        'listen on a loopback address or set ASSAY_AUTH=off to serve without keys',
    );
  }
}
