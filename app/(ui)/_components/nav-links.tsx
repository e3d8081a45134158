"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/overview", label: "Overview" },
  { href: "/tasks", label: "Tasks" },
  { href: "/inbox", label: "Inbox" },
  // Every operator: what the signed-in person may decide (docs/approvals.md).
  { href: "/approvals", label: "Approvals" },
  { href: "/tenants", label: "Tenants" },
  { href: "/routes", label: "Routes" },
  { href: "/workers", label: "Workers" },
  { href: "/retention", label: "Retention" },
  { href: "/connections", label: "Connections" },
  // Every operator: members manage their own tenants' webhooks.
  { href: "/webhooks", label: "Webhooks" },
  // Every operator: members read the audit trail of their own tenants.
  { href: "/audit", label: "Audit" },
];
const ADMIN_LINKS: typeof LINKS = [];

export function NavLinks({ isAdmin = false }: { isAdmin?: boolean }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="flex flex-wrap gap-1">
      {[...LINKS, ...(isAdmin ? ADMIN_LINKS : [])].map((link) => {
        const active = pathname === link.href || pathname.startsWith(`${link.href}/`);
        return (
          <Link
            key={link.href}
            href={link.href}
            aria-current={active ? "page" : undefined}
            className={`rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
              active ? "bg-indigo-50 text-indigo-700" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"
            }`}
          >
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
