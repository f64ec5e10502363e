// @vitest-environment happy-dom
import { renderHook, waitFor, act } from '@testing-library/react';
import { useCallback, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { PAGE_SIZE, useEveryPage } from './connections.ts';

/** A connection of `pages` pages, the first loaded; page `failing` (from 2) fails once. */
function useConnection(pages: number, failing?: number) {
  const [loaded, setLoaded] = useState(1);
  const [loading, setLoading] = useState(false);
  const [asked, setAsked] = useState<number[]>([]);
  const [failed, setFailed] = useState(false);
  const load = useCallback(
    (count: number, { onComplete }: { onComplete: (error: Error | null) => void }) => {
      setLoading(true);
      setAsked((current) => [...current, count]);
      setTimeout(() => {
        setLoading(false);
        if (loaded + 1 === failing && !failed) {
          setFailed(true);
          onComplete(new Error('page refused'));
          return;
        }
        setLoaded((current) => current + 1);
        onComplete(null);
      }, 1);
    },
    [loaded, failing, failed],
  );
  return { loaded, asked, ...useEveryPage(loaded < pages, loading, load) };
}

describe('useEveryPage', () => {
  it("asks for the next page, a page of the API's largest size, until there is none", async () => {
    const { result } = renderHook(() => useConnection(4));
    await waitFor(() => expect(result.current.complete).toBe(true));
    expect(result.current.loaded).toBe(4);
    expect(result.current.asked).toEqual([PAGE_SIZE, PAGE_SIZE, PAGE_SIZE]);
  });

  it('stops at a failure until retried', async () => {
    const { result } = renderHook(() => useConnection(3, 2));
    await waitFor(() => expect(result.current.error?.message).toBe('page refused'));
    expect(result.current.complete).toBe(false);
    expect(result.current.loaded).toBe(1);
    act(() => result.current.retry());
    await waitFor(() => expect(result.current.complete).toBe(true));
    expect(result.current.error).toBeNull();
    expect(result.current.loaded).toBe(3);
  });
});
