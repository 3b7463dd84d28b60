'use client';
// Answers to client-tool calls and approval decisions from the boards: a refused one comes back as a thrown
// Error with the server's message, which the board and the prompt show next to the control.
import { useMutation } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useTRPC } from '../trpc.ts';
import type { ClientAnswer } from '../panels/WaitingBoard.tsx';
import { errorMessage } from './errors.ts';

export function useBoardActions(): {
  onAnswer: (answer: ClientAnswer) => Promise<void>;
  onDecide: (approvalId: string, approve: boolean, reason?: string) => Promise<void>;
} {
  const trpc = useTRPC();
  const { mutateAsync: answerAsync } = useMutation(trpc.answerClientCall.mutationOptions());
  const { mutateAsync: decideAsync } = useMutation(trpc.approvals.decide.mutationOptions());
  const onAnswer = useCallback(
    async (answer: ClientAnswer) => {
      try {
        await answerAsync(answer);
      } catch (err) {
        throw new Error(errorMessage(err));
      }
    },
    [answerAsync],
  );
  const onDecide = useCallback(
    async (approvalId: string, approve: boolean, reason?: string) => {
      try {
        await decideAsync({ approvalId, approve, ...(reason ? { reason } : {}) });
      } catch (err) {
        throw new Error(errorMessage(err));
      }
    },
    [decideAsync],
  );
  return { onAnswer, onDecide };
}
