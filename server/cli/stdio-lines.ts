// The stdin of `codemode mcp`, line-guarded: a line too long for the MCP SDK's read buffer is dropped (and reported) instead of closing the session.
//
// The SDK's stdio transport buffers at most 10 MiB of unread input; past it, it reports an error and closes,
// and the process then ended with status 0 and no word to the client. This stream sits between stdin and
// the transport and passes on whole lines only; a line that passes MAX_STDIO_LINE_BYTES is dropped up to its
// newline, so the transport never sees it and keeps serving. The caller answers the client (JSON-RPC allows
// id null when a request cannot be read).
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Longest line passed on: under the SDK's 10 MiB buffer (STDIO_DEFAULT_MAX_BUFFER_SIZE) with room for the
 * chunk that completes it; a cell or a client tool's schema is far smaller (maxRequestBodyBytes is 1 MiB over HTTP).
 */
export const MAX_STDIO_LINE_BYTES = 8 * 1024 * 1024;

export class LineGuard extends Transform {
  /** The current line's pieces while it fits (it is passed on whole, at its newline). */
  private pending: Buffer[] = [];
  private lineBytes = 0;

  /** `onDropped(bytes)`: a line of `bytes` bytes was dropped, called once its newline arrived (or at the end of input). */
  constructor(
    private readonly onDropped: (bytes: number) => void,
    private readonly maxLineBytes = MAX_STDIO_LINE_BYTES,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.lineBytes += end - start;
      // past the limit the line's pieces are let go at once: a dropped line holds no memory
      if (this.lineBytes > this.maxLineBytes) this.pending = [];
      else this.pending.push(chunk.subarray(start, end));
      if (newline !== -1) this.endLine();
      start = end;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.lineBytes > 0) this.endLine();
    done();
  }

  private endLine(): void {
    if (this.lineBytes > this.maxLineBytes) this.onDropped(this.lineBytes);
    else this.push(Buffer.concat(this.pending));
    this.pending = [];
    this.lineBytes = 0;
  }
}
