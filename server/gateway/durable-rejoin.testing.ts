// The rejoin tests' kit: the client tool a turn declares, the cell that parks before it calls it, and the session they live in.

/** The client tool the turn declares: the client answers it. */
export const ASK = { name: 'ask_user', description: 'asks the user a question', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } };
/** Parks before it calls the client tool: the call is made by the run restored on the next Gateway. */
export const PARK_THEN_ASK = 'await yield_control("park"); const answer = await ask_user({ q: "colour?" }); return { answer };';
/** Asks the client, then parks with the call pending: the restored run waits on the same call. */
export const ASK_THEN_PARK = 'const asked = ask_user({ q: "colour?" }); await yield_control("park"); return { answer: await asked };';
/** The session the client comes back to. */
export const SESSION_ID = 'sess_rejoin';

/** What the client holds of a parked run: its ids and the tokens it was given. */
export interface Parked {
  agentRunId: string;
  turnToken: string;
  sessionToken: string;
  runId: string;
}
