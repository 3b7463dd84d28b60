'use client';
// The right column's lower slot: the selected run's trajectory and snapshots, the session, the live Sources and the Test plan, one at a time.
import { memo, useCallback, useState } from 'react';
import { SessionPanel } from '../panels/SessionPanel.tsx';
import { SnapshotsPanel } from '../panels/SnapshotsPanel.tsx';
import { TrajectoryPanel } from '../panels/TrajectoryPanel.tsx';
import { SourcesPanel } from '../sources/SourcesPanel.tsx';
import { TestPlanPanel } from '../sources/TestPlanPanel.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import type { TabSpec } from '../ui/Tabs.tsx';
import type { Run } from '../api.ts';

type DetailTab = 'trajectory' | 'snapshots' | 'session' | 'sources' | 'testplan';
const DETAIL_TABS: ReadonlyArray<TabSpec<DetailTab>> = [
  { id: 'trajectory', label: 'Trajectory' },
  { id: 'snapshots', label: 'Snapshot sizes' },
  { id: 'session', label: 'Session' },
  { id: 'sources', label: 'Sources' },
  { id: 'testplan', label: 'Test plan' },
];

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const DetailTabs = memo(function DetailTabs(props: {
  /** Runs in the page's scope (the snapshot table). */
  runs: Run[];
  /** What the scope is, as the snapshot chart names it. */
  scope: 'this turn' | 'all turns';
  /** Every run the page knows (the session view). */
  allRuns: Run[];
  selectedRun?: Run;
  selectedRunId?: string;
  sessionId?: string;
  agentId?: string;
  onCatalogChanged: () => void;
  selectRun: (runId: string | undefined) => void;
}) {
  const [tab, setTab] = useState<DetailTab>('trajectory');
  const { selectedRun, selectedRunId, selectRun } = props;
  const openRun = useCallback(
    (runId: string) => {
      selectRun(runId);
      setTab('trajectory');
    },
    [selectRun],
  );
  return (
    <div className="flex flex-col gap-1.5">
      <Tabs tabs={DETAIL_TABS} active={tab} onChange={setTab} label="run and session details" />
      <TabPanel id="trajectory" active={tab === 'trajectory'}>
        <TrajectoryPanel {...(selectedRun ? { run: selectedRun } : {})} {...(selectedRunId ? { selectedRunId } : {})} />
      </TabPanel>
      <TabPanel id="snapshots" active={tab === 'snapshots'}>
        <SnapshotsPanel runs={props.runs} scope={props.scope} {...(selectedRun ? { run: selectedRun } : {})} />
      </TabPanel>
      <TabPanel id="session" active={tab === 'session'}>
        <SessionPanel runs={props.allRuns} {...(props.sessionId ? { sessionId: props.sessionId } : {})} {...(selectedRunId ? { selectedRunId } : {})} />
      </TabPanel>
      {/* live: it polls the sources and tells the page when the catalog changed, shown or not */}
      <TabPanel id="sources" active={tab === 'sources'} live>
        <SourcesPanel onCatalogChanged={props.onCatalogChanged} />
      </TabPanel>
      <TabPanel id="testplan" active={tab === 'testplan'}>
        <TestPlanPanel agentId={props.agentId} onOpenRun={openRun} />
      </TabPanel>
    </div>
  );
});
