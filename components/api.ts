// Types of what the API takes from and sends the browser, derived from AppRouter (outputs JSON-serialized, so `unknown` fields may be absent).
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../server/trpc/routers/_app.ts';

type Inputs = inferRouterInputs<AppRouter>;
type Outputs = inferRouterOutputs<AppRouter>;
type Yielded<T> = T extends AsyncIterable<infer U> ? U : never;

export type Run = Outputs['runs']['get'];
export type Approval = Outputs['approvals']['list'][number];
export type LiveEvent = Yielded<Outputs['events']>;
export type NestedCall = Run['nested'][number];
export type ControlCall = Run['calls'][number];
export type Snapshot = Run['snapshots'][number];
export type Meter = NonNullable<Run['meter']>;
export type PendingToolCall = Run['pendingToolCalls'][number];
export type ExecResult = Outputs['exec'];
export type Surface = Outputs['config']['surface'];
export type CatalogData = Outputs['catalog']['list'];
export type CatalogTool = CatalogData['tools'][number];
export type McpServer = CatalogData['mcpServers'][number];
export type Agent = Outputs['config']['agents'][number];
export type Turn = Outputs['turns']['prepare'];
export type Trajectory = Outputs['runs']['trajectory'];
export type TranscriptPage = Outputs['sessions']['transcript'];
export type TranscriptEntry = TranscriptPage['entries'][number];
export type SessionStoreEntry = Outputs['sessions']['store'][number];

/** What shapes a turn (agent, model, client tools): the input surface, catalog and turns.prepare share. */
export type TurnRequest = Inputs['catalog']['list'];
export type ClientToolSpec = NonNullable<TurnRequest['clientTools']>[number];
export type ToolSource = CatalogTool['source'];
export type ExecRequest = Inputs['exec'];
export type SourceView = Outputs['sources']['list'][number];
export type AddSourceInput = Inputs['sources']['add'];
export type TestPlanReport = Outputs['testPlan']['run'];
export type TestPlanStep = TestPlanReport['steps'][number];
export type ComparisonRow = Outputs['compare'][number];
export type CompareRequest = Inputs['compare'];
