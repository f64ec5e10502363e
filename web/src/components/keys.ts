// What screens with keyboard shortcuts share (the judging screen, the score panel): a key typed into
// a field is the field's, a modified key the browser's.

/** Whether the key's target is a field the user types into. */
export function isField(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** Whether a shortcut may take the key: not typed into a field, and without Ctrl, Meta or Alt. */
export function shortcutKey(event: KeyboardEvent): boolean {
  return !isField(event.target) && !event.ctrlKey && !event.metaKey && !event.altKey;
}
