import { describe, expect, it } from "vitest";
import {
  ZDisableRoute,
  ZRemoveMember,
  ZResetPassword,
  ZRevokeKey,
  ZSetOperatorDisabled,
  ZSetRouteSchedulePaused,
  ZSetTenantDisabled,
  ZSetWebhookEnabled,
  ZWebhookRef,
} from "../admin";
import {
  disableRouteInput,
  removeMemberInput,
  resetPasswordInput,
  revokeConnectionInput,
  revokeKeyInput,
  revokeTenantConnectionInput,
  setOperatorDisabledInput,
  setRouteSchedulePausedInput,
  setTenantDisabledInput,
  setWebhookEnabledInput,
  taskRefInput,
  webhookRefInput,
} from "./form-inputs";

const TENANT = "7d3c2b1a-0000-4000-8000-000000000001";
const OTHER = "7d3c2b1a-0000-4000-8000-000000000002";

/** A posted form, as the browser sends it: every value a string. */
function posted(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

describe("one-button forms' fields → action input", () => {
  it('a toggle posts the state it switches to, and only "true" means true', () => {
    expect(setTenantDisabledInput(posted({ tenantId: TENANT, disabled: "true" }))).toEqual({ tenantId: TENANT, disabled: true });
    expect(setTenantDisabledInput(posted({ tenantId: TENANT, disabled: "false" }))).toEqual({
      tenantId: TENANT,
      disabled: false,
    });
    // A missing or mangled flag never disables anything by accident.
    expect(setTenantDisabledInput(posted({ tenantId: TENANT })).disabled).toBe(false);
    expect(setTenantDisabledInput(posted({ tenantId: TENANT, disabled: "on" })).disabled).toBe(false);
    expect(setWebhookEnabledInput(posted({ tenantId: TENANT, subscriptionId: OTHER, enabled: "true" }))).toEqual({
      tenantId: TENANT,
      subscriptionId: OTHER,
      enabled: true,
    });
    expect(
      setRouteSchedulePausedInput(posted({ tenantId: TENANT, toolName: "nightly", paused: "false", cron: "0 9 * * *" })),
    ).toEqual({ tenantId: TENANT, toolName: "nightly", paused: false });
  });

  it("each input is what its action's schema accepts", () => {
    const cases: [{ parse: (input: unknown) => unknown }, unknown][] = [
      [ZSetTenantDisabled, setTenantDisabledInput(posted({ tenantId: TENANT, disabled: "true" }))],
      [ZSetOperatorDisabled, setOperatorDisabledInput(posted({ operatorId: OTHER, disabled: "true" }))],
      [ZResetPassword, resetPasswordInput(posted({ operatorId: OTHER }))],
      [ZRemoveMember, removeMemberInput(posted({ tenantId: TENANT, operatorId: OTHER }))],
      [ZRevokeKey, revokeKeyInput(posted({ tenantId: TENANT, keyId: "0123456789abcdef" }))],
      [ZDisableRoute, disableRouteInput(posted({ tenantId: TENANT, toolName: "nightly" }))],
      [ZSetRouteSchedulePaused, setRouteSchedulePausedInput(posted({ tenantId: TENANT, toolName: "nightly", paused: "true" }))],
      [ZWebhookRef, webhookRefInput(posted({ tenantId: TENANT, subscriptionId: OTHER }))],
      [ZSetWebhookEnabled, setWebhookEnabledInput(posted({ tenantId: TENANT, subscriptionId: OTHER, enabled: "false" }))],
    ];
    for (const [schema, input] of cases) expect(() => schema.parse(input)).not.toThrow();
    // The form posts no revokeKeys: disabling an operator still revokes the keys it minted (review F7).
    expect(ZSetOperatorDisabled.parse(setOperatorDisabledInput(posted({ operatorId: OTHER, disabled: "true" })))).toEqual({
      operatorId: OTHER,
      disabled: true,
      revokeKeys: true,
    });
  });

  it("an absent field is empty, for the action to refuse by name", () => {
    expect(taskRefInput(posted({}))).toEqual({ taskId: "" });
    expect(revokeKeyInput(posted({ tenantId: TENANT }))).toEqual({ tenantId: TENANT, keyId: "" });
    expect(() => ZRevokeKey.parse(revokeKeyInput(posted({ tenantId: TENANT })))).toThrow();
  });

  it("an own connection posts the grant alone; a tenant's names the tenant too", () => {
    expect(revokeConnectionInput(posted({ grantId: "g1", tenantId: TENANT }))).toEqual({ grantId: "g1" });
    expect(revokeTenantConnectionInput(posted({ grantId: "g1", tenantId: TENANT }))).toEqual({ grantId: "g1", tenantId: TENANT });
  });
});
