// A test set file sent through REST `POST /testsets/upload` (docs/resources.md): multipart `file`,
// `upload_type` CSV or JSON, `testset_name`; with the session cookie and the project on screen, as
// every request of the UI (docs/ui.md#api-access). A 422 keeps its faults for the form.
import { ApiError, PROJECT_HEADER, type InputIssue } from '../relay.ts';

/** CSV or JSON, from the file's name (then its type); null when it is neither. */
export function uploadType(file: { name: string; type: string }): 'CSV' | 'JSON' | null {
  if (/\.json$/i.test(file.name) || file.type === 'application/json') return 'JSON';
  if (/\.csv$/i.test(file.name) || file.type === 'text/csv') return 'CSV';
  return null;
}

export async function uploadTestset(projectId: string, file: File, name: string, type: 'CSV' | 'JSON'): Promise<{ id: string }> {
  const form = new FormData();
  form.set('upload_type', type);
  if (name.trim()) form.set('testset_name', name.trim());
  form.set('file', file, file.name);
  const response = await fetch('/testsets/upload', { method: 'POST', credentials: 'same-origin', headers: { [PROJECT_HEADER]: projectId }, body: form });
  const body = (await response.json().catch(() => ({}))) as { id?: string; detail?: string | InputIssue[] };
  if (response.ok && body.id) return { id: body.id };
  const detail = Array.isArray(body.detail) ? body.detail : [];
  const message = typeof body.detail === 'string' ? body.detail : detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
  throw new ApiError(message || `The upload answered ${response.status}`, response.status, undefined, detail);
}
