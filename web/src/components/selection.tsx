// Rows chosen in a list by their checkboxes, for an action on all of them ("add to test set",
// docs/ui.md#add-to-test-set); the choice stays across the list's pages.
import { useState } from 'react';

export interface Selection {
  /** The chosen ids, in the order they were chosen. */
  ids: string[];
  toggle: (id: string) => void;
}

export function useSelection(): Selection {
  const [ids, setIds] = useState<string[]>([]);
  return { ids, toggle: (id) => setIds((chosen) => (chosen.includes(id) ? chosen.filter((other) => other !== id) : [...chosen, id])) };
}

export function SelectBox({ selection, id, label }: { selection: Selection; id: string; label: string }) {
  return <input type="checkbox" aria-label={label} checked={selection.ids.includes(id)} onChange={() => selection.toggle(id)} />;
}
