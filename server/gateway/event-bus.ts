// The Gateway's one stream of run events: every part emits into it, the boards, the API and the MCP face subscribe.
import { EventEmitter } from 'node:events';
import type { RunEvent } from '../runs/types.ts';

export class RunEventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    // one listener per open stream, board and MCP session: there is no sensible cap to warn at
    this.emitter.setMaxListeners(0);
  }

  emit(event: RunEvent): void {
    this.emitter.emit('event', event);
  }

  /** Listeners hear events in the order they subscribed; returns the unsubscribe. */
  subscribe(listener: (event: RunEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  close(): void {
    this.emitter.removeAllListeners();
  }
}
