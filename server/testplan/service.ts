// The test plan as a service of one server: one plan at a time over the loaded Gateway (the Test plan tab runs it through the API).
import type { Gateway } from '../gateway.ts';
import { runTestPlan } from './run.ts';
import type { TestPlanReport } from './types.ts';

/** A plan was asked for while another was running: two would race on the same catalog and double the load. */
export class TestPlanBusyError extends Error {
  override name = 'TestPlanBusyError';
  constructor() {
    super('a test plan is already running; wait for its verdicts');
  }
}

/** What the API edge calls: run the plan for an agent (the config's first when absent) and resolve to its report. */
export interface TestPlanService {
  /** Rejects with TestPlanBusyError while another plan runs, and with an Error naming the problem for an unknown agent. */
  run(opts: { agentId?: string }): Promise<TestPlanReport>;
}

/** One plan at a time: the guard lives here, with the service the server builds once, not in the router. */
export class TestPlanRunner implements TestPlanService {
  private running = false;

  /** `runPlan`: the plan itself (runTestPlan over a Gateway; tests give a stand-in to hold a plan open). */
  constructor(private readonly runPlan: (opts: { agentId?: string }) => Promise<TestPlanReport>) {}

  /** The runner of the real plan over `gateway` (it starts sibling Gateways over the same tool sources). */
  static over(gateway: Gateway): TestPlanRunner {
    return new TestPlanRunner((opts) => runTestPlan(gateway, opts.agentId !== undefined ? { agentId: opts.agentId } : {}));
  }

  async run(opts: { agentId?: string }): Promise<TestPlanReport> {
    if (this.running) throw new TestPlanBusyError();
    this.running = true;
    try {
      return await this.runPlan(opts);
    } finally {
      this.running = false;
    }
  }
}
