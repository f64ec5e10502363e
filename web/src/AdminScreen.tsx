// The administration screens (docs/ui.md#administration), one per section of the URL.
import { AdminLayout } from './components/AdminLayout.tsx';
import type { AdminSection } from './router.tsx';
import { ApiKeys } from './auth/ApiKeys.tsx';
import { AuditLog } from './auth/AuditLog.tsx';
import { Members } from './auth/Members.tsx';
import { Prices } from './pricing/Prices.tsx';
import { Projects } from './projects/Projects.tsx';

export function AdminScreen({ projectId, section }: { projectId: string; section: AdminSection }) {
  return (
    <AdminLayout projectId={projectId} section={section}>
      {section === 'keys' && <ApiKeys />}
      {section === 'members' && <Members />}
      {section === 'audit' && <AuditLog projectId={projectId} />}
      {section === 'prices' && <Prices />}
      {section === 'projects' && <Projects projectId={projectId} />}
    </AdminLayout>
  );
}
