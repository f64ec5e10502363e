// Synthetic OTLP traces for tests and benchmarks: agent-shaped span trees and their OTLP/HTTP
// protobuf bodies, encoded with the service's own descriptor (src/observability/ingestion/otlp/messages.ts),
// for tests that need fixed ids and exact control of what each request holds.
import { ExportTraceServiceRequest } from '../../src/observability/ingestion/otlp/messages.js';

/** A span as a test means it; ids are lower-case hex as the service stores them. */
export interface SyntheticSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: 'AGENT' | 'CHAIN' | 'LLM' | 'TOOL';
  startNs: bigint;
  endNs: bigint;
}

/** 2024-05-01T12:00:00Z in nanoseconds. */
export const T0_NS = 1_714_564_800_000_000_000n;
const MS = 1_000_000n;

/** `n` (≥ 1) as `bytes` bytes of lower-case hex. */
export function hexId(n: number | bigint, bytes: number): string {
  return BigInt(n)
    .toString(16)
    .padStart(bytes * 2, '0');
}

export interface AgentTraceShape {
  /** Agent spans under the root. */
  agents: number;
  /** Step (CHAIN) spans under each agent. */
  steps: number;
  /** LLM spans under each step. */
  calls: number;
  /** The first `tools` LLM spans of each step have one TOOL child each. */
  tools: number;
}

/** 1 + agents × (1 + steps × (1 + calls + tools)) spans when not cut short. */
export function agentTraceSize(shape: AgentTraceShape): number {
  return 1 + shape.agents * (1 + shape.steps * (1 + shape.calls + shape.tools));
}

/**
 * A trace shaped like an agent run: root → agents → steps → LLM calls → tools, generated depth
 * first and cut at `total` spans (so the last agent may be smaller). Span ids count up from
 * `firstSpan` in generation order. Siblings start in an order unlike their ids: the LLM calls of
 * a step start in a scrambled order with pairs starting at the same nanosecond (so the span id
 * decides between them). Answered in generation order (parents first); `endOrder` gives the order
 * an OpenTelemetry exporter sends them in.
 */
export function agentTrace(traceId: string, shape: AgentTraceShape, total = agentTraceSize(shape), firstSpan = 1): SyntheticSpan[] {
  const preorder: SyntheticSpan[] = [];
  let next = firstSpan;
  const add = (parent: SyntheticSpan | null, name: string, kind: SyntheticSpan['kind'], startNs: bigint, durationNs: bigint) => {
    if (preorder.length >= total) return null;
    const span: SyntheticSpan = { traceId, spanId: hexId(next++, 8), parentSpanId: parent?.spanId ?? null, name, kind, startNs, endNs: startNs + durationNs };
    preorder.push(span);
    return span;
  };
  const callWidth = 10n * MS;
  const stepWidth = BigInt(shape.calls + 1) * callWidth;
  const agentWidth = BigInt(shape.steps + 1) * stepWidth;
  const root = add(null, 'agent run', 'CHAIN', T0_NS, BigInt(shape.agents + 1) * agentWidth)!;
  for (let a = 0; a < shape.agents && preorder.length < total; a++) {
    const agentStart = T0_NS + BigInt(a) * agentWidth + MS;
    const agent = add(root, `agent ${a}`, 'AGENT', agentStart, agentWidth - 2n * MS)!;
    for (let s = 0; s < shape.steps && preorder.length < total; s++) {
      const stepStart = agentStart + BigInt(s) * stepWidth + MS;
      const step = add(agent, `agent ${a} step ${s}`, 'CHAIN', stepStart, stepWidth - 2n * MS)!;
      for (let c = 0; c < shape.calls && preorder.length < total; c++) {
        // Scrambled, and two calls per slot: call c starts in slot ((c × 7) mod calls) / 2.
        const slot = BigInt(Math.floor(((c * 7) % shape.calls) / 2));
        const callStart = stepStart + MS + slot * callWidth;
        const call = add(step, `agent ${a} step ${s} call ${c}`, 'LLM', callStart, callWidth - MS);
        if (call && c < shape.tools) add(call, `agent ${a} step ${s} call ${c} tool`, 'TOOL', callStart + MS, 5n * MS);
      }
    }
  }
  return preorder;
}

/** Spans in end order: each span after all its descendants (children before parents, the root last). */
export function endOrder(preorder: readonly SyntheticSpan[]): SyntheticSpan[] {
  const children = new Map<string | null, SyntheticSpan[]>();
  for (const span of preorder) {
    const list = children.get(span.parentSpanId);
    if (list) list.push(span);
    else children.set(span.parentSpanId, [span]);
  }
  const out: SyntheticSpan[] = [];
  const stack: { span: SyntheticSpan; expanded: boolean }[] = (children.get(null) ?? []).map((span) => ({ span, expanded: false })).reverse();
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.expanded) {
      out.push(top.span);
      stack.pop();
      continue;
    }
    top.expanded = true;
    const kids = children.get(top.span.spanId) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i], expanded: false });
  }
  return out;
}

/** Start time, then span id: the order the service lists siblings in (docs/observability.md#rest-reads). */
export function startOrder(a: Pick<SyntheticSpan, 'spanId' | 'startNs'>, b: Pick<SyntheticSpan, 'spanId' | 'startNs'>): number {
  if (a.startNs !== b.startNs) return a.startNs < b.startNs ? -1 : 1;
  return a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0;
}

/** The OpenInference attributes of a synthetic span (about 150 bytes). */
function attributes(span: SyntheticSpan) {
  const list: [string, { stringValue?: string; intValue?: number }][] = [
    ['openinference.span.kind', { stringValue: span.kind }],
    ['input.value', { stringValue: `{"task":"${span.name}"}` }],
  ];
  if (span.kind === 'LLM') {
    list.push(
      ['llm.model_name', { stringValue: 'gpt-4o-mini' }],
      ['llm.token_count.prompt', { intValue: 120 }],
      ['llm.token_count.completion', { intValue: 30 }],
    );
    list.push(['output.value', { stringValue: `answer of ${span.spanId}` }]);
  }
  return list.map(([key, value]) => ({ key, value }));
}

/** One ExportTraceServiceRequest (OTLP/HTTP protobuf body) holding `spans`. */
export function otlpProtobufBody(spans: readonly SyntheticSpan[], serviceName = 'assay-tests'): Uint8Array<ArrayBuffer> {
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: serviceName } }] },
        scopeSpans: [
          {
            scope: { name: 'synthetic', version: '1.0.0' },
            spans: spans.map((span) => ({
              traceId: Buffer.from(span.traceId, 'hex'),
              spanId: Buffer.from(span.spanId, 'hex'),
              ...(span.parentSpanId ? { parentSpanId: Buffer.from(span.parentSpanId, 'hex') } : {}),
              name: span.name,
              kind: 1,
              startTimeUnixNano: span.startNs.toString(),
              endTimeUnixNano: span.endNs.toString(),
              attributes: attributes(span),
              status: { code: 1 },
            })),
          },
        ],
      },
    ],
  });
  return new Uint8Array(ExportTraceServiceRequest.encode(message).finish());
}

/** `items` in consecutive slices of `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** POSTs OTLP/HTTP protobuf bodies to `url` with `concurrency` requests in flight; answers the statuses in body order. */
export async function postOtlpBodies(url: string, bodies: readonly Uint8Array<ArrayBuffer>[], concurrency: number): Promise<number[]> {
  const statuses: number[] = new Array(bodies.length);
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++;
      const response = await fetch(url, { method: 'POST', body: bodies[i], headers: { 'content-type': 'application/x-protobuf' } });
      await response.arrayBuffer();
      statuses[i] = response.status;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}
