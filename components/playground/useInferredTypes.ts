'use client';
// The editor's declarations with this turn's inferred output types around them (tools that declare no output):
// refetched whenever a call of the page returns, since each result may refine them. Editor-only: the model
// never sees them, and the server typecheck reads them only when the user opts in.
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Turn } from '../api.ts';
import { useTRPC } from '../trpc.ts';

export function useInferredTypes(turn: Turn | undefined, catalogDeclarations: string, resultKey: unknown): { declarations: string; inferredTools: number } {
  const trpc = useTRPC();
  const query = useQuery({
    ...trpc.turns.inferredTypes.queryOptions({ agentRunId: turn?.agentRunId ?? '', turnToken: turn?.turnToken }),
    enabled: turn !== undefined,
  });
  const { refetch } = query;
  useEffect(() => {
    if (turn !== undefined && resultKey !== undefined) void refetch();
  }, [turn, resultKey, refetch]);
  const overlay = query.data;
  if (!overlay || overlay.tools.length === 0) return { declarations: catalogDeclarations, inferredTools: 0 };
  // the same order as the server's opt-in typecheck (withInferred): plain tools' overloads first, MCP members last
  return { declarations: `${overlay.leading}${catalogDeclarations}${overlay.trailing}`, inferredTools: overlay.tools.length };
}
