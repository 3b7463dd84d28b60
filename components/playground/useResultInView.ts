'use client';
// Brings the result panel's head into view for each exec the page starts, when it starts and when it ends.
import { useEffect, useRef, type RefObject } from 'react';
import type { CellCall } from './callState.ts';

/**
 * The ref goes on the result panel's wrapper. `block: 'nearest'` moves nothing while the head is in view; it brings
 * the result in from the replay lab below it or past open compare results, and again at the end, because scroll
 * anchoring keeps the lab in place while a result above it grows (stacked). A Wait leaves the page where it is: it
 * is pressed on a board card, which shows the wait.
 */
export function useResultInView(call: CellCall | undefined): RefObject<HTMLDivElement | null> {
  const ref = useRef<HTMLDivElement>(null);
  const execSeq = call?.tool === 'exec' ? call.seq : undefined;
  const ended = call?.result !== undefined || call?.error !== undefined;
  useEffect(() => {
    if (execSeq !== undefined) ref.current?.querySelector('header')?.scrollIntoView({ block: 'nearest' });
  }, [execSeq, ended]);
  return ref;
}
