import type { Metadata } from "next";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in · Runifold" };

export default function LoginPage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-6 py-12">
      <h1 className="text-2xl font-semibold tracking-tight">Sign in to Runifold</h1>
      <p className="mt-1 text-sm text-slate-600">Operators only. MCP clients use API keys instead.</p>
      <LoginForm />
    </main>
  );
}
