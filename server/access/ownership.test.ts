// Plain tests of the ownership records: token checks, what an ended turn keeps until prune, session joins.
import { describe, expect, it } from 'vitest';
import { MAX_STORED_TURN_TOKEN_LOOKUPS, Ownership, type StoredTokens } from './ownership.ts';
import { newToken, tokensEqual } from './tokens.ts';

describe('tokens', () => {
  it('are fresh every time and compare equal only to themselves, whatever the length presented', () => {
    const token = newToken('tt');
    expect(newToken('tt')).not.toBe(token);
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(`${token}x`, token)).toBe(false);
    expect(tokensEqual(token.slice(0, -1), token)).toBe(false);
    expect(tokensEqual('', token)).toBe(false);
    expect(tokensEqual(undefined, token)).toBe(false);
  });
});

describe('Ownership', () => {
  it('checkTurn: held with the turn token, missing without one, wrong with another, unknown for an id never issued', () => {
    const o = new Ownership(() => false);
    const a = o.issueTurn('ar_a', 's1');
    const b = o.issueTurn('ar_b', 's2');
    expect(o.checkTurn('ar_a', a.turnToken)).toBe('held');
    expect(o.checkTurn('ar_a', undefined)).toBe('missing');
    expect(o.checkTurn('ar_a', b.turnToken)).toBe('wrong');
    expect(o.checkTurn('ar_nope', a.turnToken)).toBe('unknown');
    expect([...o.turnsOf([a.turnToken, b.turnToken, 'tt_guess'])].sort()).toEqual(['ar_a', 'ar_b']);
  });

  it('a second turn in a session gets the same session token; another session another one', () => {
    const o = new Ownership(() => false);
    const first = o.issueTurn('ar_1', 's1');
    expect(o.issueTurn('ar_2', 's1').sessionToken).toBe(first.sessionToken);
    expect(o.issueTurn('ar_3', 's2').sessionToken).not.toBe(first.sessionToken);
  });

  it('an ended turn keeps opening its runs until prune finds none of them listed', async () => {
    const o = new Ownership(() => false);
    const a = o.issueTurn('ar_a', 's1');
    o.noteRun('run_1', 'ar_a');
    o.endTurn('ar_a');
    await o.prune(new Set(['run_1']));
    expect(o.checkTurn('ar_a', a.turnToken)).toBe('held');
    expect(o.runTurn('run_1')).toBe('ar_a');
    await o.prune(new Set());
    expect(o.runTurn('run_1')).toBeUndefined();
    expect(o.checkTurn('ar_a', a.turnToken)).toBe('unknown');
    expect(o.turnsOf([a.turnToken]).size).toBe(0);
  });

  it('a live turn survives prune even without runs', async () => {
    const o = new Ownership(() => false);
    const a = o.issueTurn('ar_a', 's1');
    await o.prune(new Set());
    expect(o.checkTurn('ar_a', a.turnToken)).toBe('held');
  });

  it('prune drops the token of a session with no turn left and no history: its id is new again; a session with history keeps its token', async () => {
    const withHistory = new Set<string>();
    const o = new Ownership(async (id) => withHistory.has(id));
    o.issueTurn('ar_empty', 's_empty');
    const kept = o.issueTurn('ar_used', 's_used');
    withHistory.add('s_used');
    o.endTurn('ar_empty');
    o.endTurn('ar_used');
    await o.prune(new Set());
    expect(o.sessionJoin('s_empty', undefined, false)).toBe('new');
    expect(o.sessionJoin('s_used', kept.sessionToken, true)).toBe('held');
  });

  it('prune keeps the token of a session without history while a turn of it is live', async () => {
    const o = new Ownership(() => false);
    const { sessionToken } = o.issueTurn('ar_live', 's_live');
    await o.prune(new Set());
    expect(o.sessionJoin('s_live', undefined, false)).toBe('missing');
    expect(o.sessionJoin('s_live', sessionToken, false)).toBe('held');
  });

  it('sessionJoin: new without a token or history, held/missing/wrong once issued, orphaned with history but no token', async () => {
    const withHistory = new Set(['s_old']);
    const o = new Ownership((id) => withHistory.has(id));
    expect(o.sessionJoin('s_new', undefined, await o.sessionHistory('s_new'))).toBe('new');
    expect(o.sessionJoin('s_old', 'st_anything', await o.sessionHistory('s_old'))).toBe('orphaned');
    const { sessionToken } = o.issueTurn('ar_1', 's_new');
    expect(o.sessionJoin('s_new', sessionToken, false)).toBe('held');
    expect(o.sessionJoin('s_new', undefined, false)).toBe('missing');
    expect(o.sessionJoin('s_new', 'st_other', false)).toBe('wrong');
  });

  it('with a token store (runs.durable): a stored token joins a session this process holds no token for and becomes its token; a wrong or missing one is refused; the store is asked only when needed', async () => {
    const stored = newToken('st');
    const asked: Array<string | undefined> = [];
    const store: StoredTokens = {
      checkSession: async (sessionId, presented) => {
        asked.push(presented);
        if (sessionId !== 's_stored') return 'unknown';
        if (presented === undefined) return 'missing';
        return presented === stored ? 'held' : 'wrong';
      },
      turnSession: async () => undefined,
    };
    const o = new Ownership((id) => id === 's_stored', store);
    expect(o.sessionJoin('s_stored', undefined, await o.lookupSession('s_stored', undefined))).toBe('missing');
    expect(o.sessionJoin('s_stored', 'st_other', await o.lookupSession('s_stored', 'st_other'))).toBe('wrong');
    // nothing stored: as without a store (orphaned with history, new without)
    expect(o.sessionJoin('s_free', undefined, await o.lookupSession('s_free', undefined))).toBe('new');
    expect(o.sessionJoin('s_stored', stored, await o.lookupSession('s_stored', stored))).toBe('held');
    // the session's token here now: the next turn hands it back, and it opens the session without the store
    expect(o.issueTurn('ar_back', 's_stored').sessionToken).toBe(stored);
    asked.length = 0;
    expect(o.sessionJoin('s_stored', stored, await o.lookupSession('s_stored', stored))).toBe('held');
    expect(o.sessionJoin('s_stored', undefined, await o.lookupSession('s_stored', undefined))).toBe('missing');
    expect(asked).toEqual([]);

    // a token minted here meanwhile (the operator joined first) gives way to the stored one the client presents
    const later = new Ownership(() => true, store);
    const minted = later.issueTurn('ar_operator', 's_stored').sessionToken;
    expect(later.sessionJoin('s_stored', stored, await later.lookupSession('s_stored', stored))).toBe('held');
    expect(later.issueTurn('ar_client', 's_stored').sessionToken).toBe(stored);
    expect(later.sessionJoin('s_stored', minted, await later.lookupSession('s_stored', minted))).toBe('wrong');
  });

  it('turnOpensSession: a turn token known here or stored (runs.durable) opens its own session only; unknown tokens are looked up a bounded few at a time', async () => {
    const storedTurn = newToken('tt');
    const looked: string[] = [];
    const store: StoredTokens = {
      checkSession: async () => 'unknown',
      turnSession: async (token) => {
        looked.push(token);
        return token === storedTurn ? 's_earlier' : undefined;
      },
    };
    const o = new Ownership(() => false, store);
    const { turnToken } = o.issueTurn('ar_here', 's_here');
    expect(await o.turnOpensSession('s_here', [turnToken])).toBe(true);
    expect(looked).toEqual([]);
    expect(await o.turnOpensSession('s_earlier', [turnToken, storedTurn])).toBe(true);
    expect(looked).toEqual([storedTurn]);
    expect(await o.turnOpensSession('s_here', [storedTurn])).toBe(false);
    looked.length = 0;
    const strangers = Array.from({ length: MAX_STORED_TURN_TOKEN_LOOKUPS + 3 }, () => newToken('tt'));
    expect(await o.turnOpensSession('s_earlier', [...strangers, storedTurn])).toBe(false);
    expect(looked).toHaveLength(MAX_STORED_TURN_TOKEN_LOOKUPS);
    // without a store, a token this process does not know opens nothing
    expect(await new Ownership(() => false).turnOpensSession('s_earlier', [storedTurn])).toBe(false);
  });

  it('prune: a session whose history cannot be looked up keeps its token; one whose turn came back while it was looked up keeps it too', async () => {
    let lookups = 0;
    const o = new Ownership(async () => {
      lookups++;
      throw new Error('database down');
    });
    const { sessionToken } = o.issueTurn('ar_a', 's_down');
    o.endTurn('ar_a');
    await o.prune(new Set());
    expect(lookups).toBe(1);
    expect(o.sessionJoin('s_down', sessionToken, false)).toBe('held');

    let again: { sessionToken: string } | undefined;
    const racing = new Ownership(async () => {
      // a turns.prepare naming the session lands while prune waits for the database
      again = racing.issueTurn('ar_again', 's_race');
      return false;
    });
    const first = racing.issueTurn('ar_first', 's_race');
    racing.endTurn('ar_first');
    await racing.prune(new Set());
    expect(again?.sessionToken).toBe(first.sessionToken);
    expect(racing.sessionJoin('s_race', first.sessionToken, false)).toBe('held');
  });
});
