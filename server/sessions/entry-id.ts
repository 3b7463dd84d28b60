// Transcript entry ids that sort in the order this process made them.
//
// An entry id is the primary key of `entries` and, as the next entry's parent, a key of its parent index. Random ids
// put every insert at a random leaf of both B-trees: with tens of thousands of rows (a cell's nested calls each add
// one) that was ~40 µs an insert here, against ~10 µs when ids only grow and inserts land on the right-most leaf
// (bench/README.md, "Where the time went"). So an id is the time, then a counter, then randomness: `e_` + 9 base-36 digits of
// milliseconds (fixed width, good to the year 5000) + 4 base-36 digits counting ids within that millisecond + 8 hex
// digits from a UUID, so two processes writing one database in the same millisecond still do not collide. Ids only
// grow within a process even when the wall clock steps back (the last millisecond is reused and its counter runs on).
import { randomUUID } from 'node:crypto';

const TIME_DIGITS = 9;
const COUNT_DIGITS = 4;
const COUNT_LIMIT = 36 ** COUNT_DIGITS;

let lastMs = 0;
let count = 0;

export function newEntryId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    count = 0;
  } else if (++count >= COUNT_LIMIT) {
    // more than 1.6 million ids in one millisecond (or a clock far behind): borrow the next millisecond
    lastMs += 1;
    count = 0;
  }
  return `e_${lastMs.toString(36).padStart(TIME_DIGITS, '0')}${count.toString(36).padStart(COUNT_DIGITS, '0')}${randomUUID().slice(0, 8)}`;
}
