// The administration screens (docs/ui.md#administration), one per section of the URL.
import type { AdminSection } from '../router.tsx';
import { ApiKeys } from './ApiKeys.tsx';
import { AuditLog } from './AuditLog.tsx';
import { Members } from './Members.tsx';
import { AdminLayout } from './parts.tsx';
import { Prices } from './Prices.tsx';
import { Projects } from './Projects.tsx';
import './admin.css';

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
