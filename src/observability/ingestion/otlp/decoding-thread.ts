// OTLP bodies are decoded and mapped on a worker thread (decoding-worker.mjs running prepare-spans.ts):
// that is half of ingestion's CPU time, and off the serving thread it runs while that thread
// writes earlier batches. One worker serves the bodies in order (these machines have two cores:
// one serves and writes, one decodes). A worker that dies fails the bodies it held and is replaced
// at the next request.
import { Worker } from 'node:worker_threads';
import { unpackSpanRecord } from '../span-record.js';
import { OtlpBadRequest, type OtlpFormat } from './decoded-span.js';
import type { PreparedLogs } from './prepare-logs.js';
import type { OtlpSignal, PreparedOtlp, PrepareReply } from './prepare-spans.js';

interface Pending {
  resolve(prepared: PreparedOtlp | PreparedLogs): void;
  reject(error: Error): void;
}

interface DecodingThread {
  worker: Worker;
  pending: Map<number, Pending>;
}

export class OtlpDecoder {
  private thread: DecodingThread | null = null;
  private nextId = 1;

  /** Decodes and maps a decompressed traces body; rejects with OtlpBadRequest when it cannot be read at all. */
  prepare(format: OtlpFormat, body: Uint8Array): Promise<PreparedOtlp> {
    return this.send('traces', format, body) as Promise<PreparedOtlp>;
  }

  /** Decodes a decompressed logs body into SpanLogRecord rows, as `prepare` does spans. */
  prepareLogs(format: OtlpFormat, body: Uint8Array): Promise<PreparedLogs> {
    return this.send('logs', format, body) as Promise<PreparedLogs>;
  }

  private send(signal: OtlpSignal, format: OtlpFormat, body: Uint8Array): Promise<PreparedOtlp | PreparedLogs> {
    const { worker, pending } = this.thread ?? this.spawn();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      // Referenced only while it holds work, so an idle decoder never keeps the process alive.
      if (pending.size === 1) worker.ref();
      worker.postMessage({ id, signal, format, body });
    });
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    await thread?.worker.terminate();
  }

  private spawn(): DecodingThread {
    const worker = new Worker(new URL('./decoding-worker.mjs', import.meta.url), {
      // A body's decoded objects all live until its spans are sent back: with V8's default young
      // generation they outlived several scavenges each, and collection took a third of the thread.
      resourceLimits: { maxYoungGenerationSizeMb: 64 },
    });
    const thread: DecodingThread = { worker, pending: new Map() };
    const { pending } = thread;
    worker.unref();
    worker.on('message', (reply: PrepareReply & { id: number }) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if (pending.size === 0) worker.unref();
      if ('packed' in reply) waiting.resolve({ records: reply.packed.records.map(unpackSpanRecord), rejections: reply.packed.rejections });
      else if ('logs' in reply) waiting.resolve(reply.logs);
      else waiting.reject(reply.error.badRequest ? new OtlpBadRequest(reply.error.message) : new Error(`OTLP decoding failed: ${reply.error.message}`));
    });
    const fail = (error: Error) => {
      if (this.thread === thread) this.thread = null;
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    };
    worker.on('error', (error: Error) => fail(new Error(`the OTLP decoding thread failed: ${error.message}`)));
    worker.on('exit', () => fail(new Error('the OTLP decoding thread stopped')));
    this.thread = thread;
    return thread;
  }
}
