// The root router of the playground API; the browser imports only `type AppRouter` from here.
import { router } from '../init.ts';
import { approvalsRouter } from './approvals.ts';
import { catalogRouter } from './catalog.ts';
import { abortProcedure, answerClientCallProcedure, compareProcedure, execProcedure, waitProcedure } from './cells.ts';
import { configRouter } from './config.ts';
import { eventsProcedure } from './events.ts';
import { runsRouter } from './runs.ts';
import { sessionsRouter } from './sessions.ts';
import { sourcesRouter } from './sources.ts';
import { testPlanRouter } from './testplan.ts';
import { turnsRouter } from './turns.ts';

export const appRouter = router({
  config: configRouter,
  catalog: catalogRouter,
  turns: turnsRouter,
  exec: execProcedure,
  compare: compareProcedure,
  wait: waitProcedure,
  abort: abortProcedure,
  answerClientCall: answerClientCallProcedure,
  approvals: approvalsRouter,
  runs: runsRouter,
  sessions: sessionsRouter,
  sources: sourcesRouter,
  testPlan: testPlanRouter,
  events: eventsProcedure,
});

export type AppRouter = typeof appRouter;
