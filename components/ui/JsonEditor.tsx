// A labelled plain-text editor for JSON the user types (client tools, a client call's answer): monospace, no spellcheck.
/**
 * `label` names the field for assistive technology and for tests that find it by label; the text around each
 * editor already says what it holds on screen, so the label is not repeated visually. `heightClassName` sizes
 * the box to what it usually holds (one value or a whole tool list).
 */
export function JsonEditor(props: { label: string; value: string; onChange(value: string): void; testId: string; heightClassName: string }) {
  return (
    <textarea
      aria-label={props.label}
      data-testid={props.testId}
      className={`${props.heightClassName} w-full rounded border border-neutral-800 bg-neutral-950 p-1.5 font-mono text-[11px] text-neutral-200`}
      value={props.value}
      spellCheck={false}
      onChange={(e) => props.onChange(e.target.value)}
    />
  );
}
