// A list's chosen rows by id (the evaluations to compare, the traces or sessions to add to a
// queue): kept across pages, toggled by a row's checkbox.
import { useCallback, useState } from 'react';

export function useSelection() {
  const [chosen, setChosen] = useState<string[]>([]);
  const toggle = useCallback((id: string) => setChosen((current) => (current.includes(id) ? current.filter((other) => other !== id) : [...current, id])), []);
  return { chosen, toggle };
}
