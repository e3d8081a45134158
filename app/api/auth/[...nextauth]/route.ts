import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/web";

// GET|POST /api/auth/* – next-auth (sign-in with email and password, sign-out, CSRF token, session).
const handler = NextAuth(authOptions);

export { handler as GET, handler as POST };
