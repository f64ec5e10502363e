// Lists read through Relay's pagination fragments (docs/ui.md#lists): the API's pages hold at most
// 100 items, so a list a screen shows whole asks for the next page until there is none.
import { useCallback, useEffect, useState } from 'react';
import { usePaginationFragment } from 'react-relay';
import type { KeyType, KeyTypeData } from 'react-relay/relay-hooks/helpers';
import type { GraphQLTaggedNode, OperationType } from 'relay-runtime';

/** The API's largest page. */
export const PAGE_SIZE = 100;

type LoadPage = (count: number, options: { onComplete: (error: Error | null) => void }) => unknown;

export interface EveryPage {
  /** Every page has arrived. */
  complete: boolean;
  /** The failure that stopped the loading, if one did. */
  error: Error | null;
  /** Goes on after a failure. */
  retry: () => void;
}

/**
 * Loads page after page (`load` is a pagination fragment's `loadNext`, or `loadPrevious` for a list
 * read newest first) until `hasMore` is false; a failure stops it until `retry`.
 */
export function useEveryPage(hasMore: boolean, isLoading: boolean, load: LoadPage): EveryPage {
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    if (hasMore && !isLoading && error === null) load(PAGE_SIZE, { onComplete: (failure) => failure && setError(failure) });
  }, [hasMore, isLoading, load, error]);
  const retry = useCallback(() => setError(null), []);
  return { complete: !hasMore, error, retry };
}

/** A pagination fragment read whole: its data, growing page by page until the connection's end. */
export function useWholeConnection<TQuery extends OperationType, TKey extends KeyType>(
  fragment: GraphQLTaggedNode,
  key: TKey,
): { data: KeyTypeData<TKey>; pages: EveryPage } {
  const { data, hasNext, isLoadingNext, loadNext } = usePaginationFragment<TQuery, TKey>(fragment, key);
  return { data, pages: useEveryPage(hasNext, isLoadingNext, loadNext) };
}
