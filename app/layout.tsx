import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: "Runifold",
  description: "Durable workflows exposed through MCP Tasks, backed by Postgres.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: proxy.ts's CSP allows only scripts carrying this request's nonce,
  // which Next adds while rendering, so a page prerendered at build time could not hydrate.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
