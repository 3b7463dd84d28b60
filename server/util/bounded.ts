// Insertion-ordered Maps and Sets kept to a bound: the oldest entries go first (remembered ids, notices, hints).

/** Drops the oldest entries (in insertion order) of `entries` until it holds at most `max`. */
export function trimOldest(entries: Set<unknown> | Map<unknown, unknown>, max: number): void {
  // deleting the key being visited is safe while iterating a Map or Set
  for (const key of entries.keys()) {
    if (entries.size <= max) return;
    entries.delete(key);
  }
}
