// A trace's spans as a tree, built in O(n) from one flat list (one SQL query) without recursion,
// so traces of tens of thousands of spans, however deep, neither cost a query per span nor
// overflow the stack.

/** The fields of a span the tree needs. */
export interface TreeSpan {
  spanId: string;
  parentSpanId: string | null;
  startTimeUnixNano: bigint;
}

/** Start time, then span id: the order of siblings and of top-level spans everywhere. */
export function byStart(a: TreeSpan, b: TreeSpan): number {
  if (a.startTimeUnixNano !== b.startTimeUnixNano) return a.startTimeUnixNano < b.startTimeUnixNano ? -1 : 1;
  return a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0;
}

export interface SpanIndex<T extends TreeSpan> {
  /** All spans in start order. */
  spans: T[];
  byId: ReadonlyMap<string, T>;
  /**
   * Top-level spans (no parent, their own parent, or a parent never stored) in start order; the
   * first is the trace's root. Then, after them, one span per parent cycle (see `indexSpans`).
   */
  roots: T[];
  /** Direct children of a span, in start order. */
  childrenOf(spanId: string): readonly T[];
}

const none: readonly never[] = Object.freeze([]);

function isTopLevel<T extends TreeSpan>(span: T, byId: ReadonlyMap<string, T>): boolean {
  return span.parentSpanId === null || span.parentSpanId === span.spanId || !byId.has(span.parentSpanId);
}

/**
 * Indexes one trace's spans by id and by parent. Spans whose parent chain loops (A → B → A; only a
 * faulty client sends that) would be reachable from no top-level span: the earliest span of each
 * such cycle is cut from its parent and listed after the top-level spans, so every span appears
 * exactly once in the tree.
 */
export function indexSpans<T extends TreeSpan>(spans: readonly T[]): SpanIndex<T> {
  // Usually already in start order from SQL, where this sort is linear.
  const ordered = [...spans].sort(byStart);
  const byId = new Map(ordered.map((span) => [span.spanId, span]));
  const children = new Map<string, T[]>();
  const roots: T[] = [];
  for (const span of ordered) {
    if (isTopLevel(span, byId)) {
      roots.push(span);
      continue;
    }
    const siblings = children.get(span.parentSpanId!);
    if (siblings) siblings.push(span);
    else children.set(span.parentSpanId!, [span]);
  }

  const reached = new Set<string>();
  const reach = (from: T) => {
    const stack = [from];
    while (stack.length > 0) {
      const span = stack.pop()!;
      reached.add(span.spanId);
      for (const child of children.get(span.spanId) ?? none) stack.push(child);
    }
  };
  for (const root of roots) reach(root);

  if (reached.size < ordered.length) {
    for (const span of ordered) {
      if (reached.has(span.spanId)) continue;
      // Every ancestor of an unreached span is unreached and stored, so walking up must loop.
      const walked = new Set<string>();
      let onCycle = span;
      while (!walked.has(onCycle.spanId)) {
        walked.add(onCycle.spanId);
        onCycle = byId.get(onCycle.parentSpanId!)!;
      }
      let earliest = onCycle;
      for (let member = byId.get(onCycle.parentSpanId!)!; member !== onCycle; member = byId.get(member.parentSpanId!)!) {
        if (byStart(member, earliest) < 0) earliest = member;
      }
      const siblings = children.get(earliest.parentSpanId!)!;
      siblings.splice(siblings.indexOf(earliest), 1);
      roots.push(earliest);
      reach(earliest);
    }
  }

  return {
    spans: ordered,
    byId,
    roots,
    childrenOf: (spanId) => children.get(spanId) ?? none,
  };
}

/**
 * Builds the nested form of the subtree under `top`, top-down and iteratively: `make` shapes one
 * span around the array its children will be pushed into, in start order.
 */
export function buildTree<T extends TreeSpan, N>(index: SpanIndex<T>, top: T, make: (span: T, children: N[]) => N): N {
  const topChildren: N[] = [];
  const topNode = make(top, topChildren);
  const stack: [T, N[]][] = [[top, topChildren]];
  while (stack.length > 0) {
    const [span, siblings] = stack.pop()!;
    for (const child of index.childrenOf(span.spanId)) {
      const children: N[] = [];
      siblings.push(make(child, children));
      stack.push([child, children]);
    }
  }
  return topNode;
}
