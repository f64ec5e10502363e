// The administration screens' frame (docs/ui.md#administration): their section links beside the
// section on screen, which loads and fails within it.
import { Suspense, type ReactNode } from 'react';
import { Link, paths, type AdminSection } from '../router.tsx';
import { ErrorBoundary, Loading } from './states.tsx';
import './admin.css';

const sectionNames: Record<AdminSection, string> = {
  keys: 'API keys',
  members: 'Members',
  audit: 'Audit log',
  prices: 'Prices',
  scores: 'Score configs',
  projects: 'Projects',
};

export function AdminLayout({ projectId, section, children }: { projectId: string; section: AdminSection; children: ReactNode }) {
  return (
    <div className="admin">
      <nav aria-label="Administration" className="admin-nav">
        {(Object.keys(sectionNames) as AdminSection[]).map((name) => (
          <Link key={name} to={paths.admin(projectId, name)} aria-current={name === section ? 'page' : undefined}>
            {sectionNames[name]}
          </Link>
        ))}
      </nav>
      <section className="admin-body" aria-labelledby="admin-title">
        <h1 id="admin-title">{sectionNames[section]}</h1>
        {/* Here, not around the layout: the sections stay on screen while one loads or fails. */}
        <ErrorBoundary resetKey={section}>
          <Suspense fallback={<Loading label={`Loading ${sectionNames[section].toLowerCase()}…`} />}>{children}</Suspense>
        </ErrorBoundary>
      </section>
    </div>
  );
}
