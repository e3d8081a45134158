import "server-only";
import { AuthenticationStepRequired, requireOperator } from "@/lib/auth";
import { webContext } from "@/lib/auth/web";

/**
 * Whether this request's session is a password sign-in whose second factor is still due: the
 * sign-in page then sends it on to /login/mfa (the console and the consent page send such a
 * session to the sign-in page, which is where a 401 ends up).
 */
export async function secondFactorDue(): Promise<boolean> {
  try {
    await requireOperator(webContext(), { duringPasswordChange: true, duringMfaEnrolment: true });
    return false;
  } catch (error) {
    return error instanceof AuthenticationStepRequired && error.step === "second_factor";
  }
}
