import type { RawValue } from "./schema-form";

/**
 * The console's forms, field names → action input. They run on the server (app/(ui)/actions.ts
 * binds each to its action), so a form works the same whether the page's scripts have loaded or
 * not: a submit before hydration is a plain multipart POST that Next hands to the same action.
 * The action validates the result (lib/ui/actions): these only pick fields out of the FormData.
 */
type Fields = FormData;

const text = (form: Fields, name: string): string => {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
};
const list = (form: Fields, name: string): string[] =>
  form.getAll(name).filter((value): value is string => typeof value === "string");
/** A toggle's hidden field: the state the button switches to, "true" or "false" (anything else is false). */
const flag = (form: Fields, name: string): boolean => text(form, name) === "true";

export const changePasswordInput = (form: Fields) => ({
  currentPassword: text(form, "currentPassword"),
  newPassword: text(form, "newPassword"),
});

export const confirmMfaInput = (form: Fields) => ({ code: text(form, "code") });

export const createTenantInput = (form: Fields) => ({ slug: text(form, "slug"), name: text(form, "name") });

export const createOperatorInput = (form: Fields) => ({
  email: text(form, "email"),
  password: text(form, "password"),
  role: text(form, "role") || "operator",
});

export const addMemberInput = (form: Fields) => ({ tenantId: text(form, "tenantId"), email: text(form, "email") });

export const createKeyInput = (form: Fields) => ({
  tenantId: text(form, "tenantId"),
  name: text(form, "name"),
  scopes: list(form, "scopes"),
});

export const createOperatorTokenInput = (form: Fields) => {
  const days = text(form, "expiresInDays").trim();
  return {
    name: text(form, "name"),
    scopes: list(form, "scopes"),
    ...(days ? { expiresInDays: Number(days) } : {}),
  };
};

export const revokeOperatorTokenInput = (form: Fields) => ({ tokenId: text(form, "tokenId") });

export const createWebhookInput = (form: Fields) => ({
  tenantId: text(form, "tenantId"),
  url: text(form, "url"),
  events: list(form, "events"),
});

export const saveRouteInput = (form: Fields) => ({
  tenantId: text(form, "tenantId"),
  toolName: text(form, "toolName"),
  workflowName: text(form, "workflowName"),
  workflowVersion: text(form, "workflowVersion"),
  title: text(form, "title"),
  description: text(form, "description"),
  taskSupport: text(form, "taskSupport"),
  allowUnpublished: form.has("allowUnpublished"),
});

/** The schedule editor: cron and timezone typed; catch-up and input kept from the current schedule (hidden fields). */
export const setRouteScheduleInput = (form: Fields) => {
  const catchUp = text(form, "catchUp");
  const input = text(form, "scheduleInput");
  return {
    tenantId: text(form, "tenantId"),
    toolName: text(form, "toolName"),
    schedule: {
      cron: text(form, "cron"),
      timezone: text(form, "timezone"),
      ...(catchUp ? { catchUp } : {}),
      ...(input ? { input: parseJson(input) } : {}),
    },
    // The schedule editor's input controls (lib/ui/schedule-input.ts): typed by the route's schema on the server.
    ...(text(form, "inputFields") ? { inputValues: schemaFormValues(form) } : {}),
  };
};

/** An inbox answer: the request's values under `v.<key>` (several values of one name are a multi-select's picks). */
/** The values of schema-form controls (app/(ui)/inbox/field-control.tsx), named `v.<key>`. */
function schemaFormValues(form: Fields): Record<string, RawValue> {
  const values: Record<string, RawValue> = {};
  for (const name of new Set(form.keys())) {
    if (!name.startsWith(VALUE_PREFIX)) continue;
    const all = list(form, name);
    values[name.slice(VALUE_PREFIX.length)] = all.length > 1 ? all : all[0];
  }
  // A multi-select's picks arrive as a list even when one is ticked.
  for (const key of list(form, "multi")) {
    const picked = values[key];
    values[key] = picked === undefined ? [] : Array.isArray(picked) ? picked : [String(picked)];
  }
  return values;
}

export const answerInputInput = (form: Fields) => ({
  taskId: text(form, "taskId"),
  key: text(form, "key"),
  action: text(form, "action") || "accept",
  values: schemaFormValues(form),
});

/** The prefix of an inbox form's value fields, so that no value can collide with taskId, key or action. */
export const VALUE_PREFIX = "v.";

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value; // the action's schema refuses it with a message
  }
}

/** The Approvals page's decision form: the pressed button names the decision. */
export const decideApprovalInput = (form: Fields) => ({
  taskId: text(form, "taskId"),
  key: text(form, "key"),
  decision: text(form, "decision"),
  comment: text(form, "comment") || undefined,
});

export const signalTaskInput = (form: Fields) => ({
  taskId: text(form, "taskId"),
  name: text(form, "name"),
  payload: text(form, "payload"),
});

export const resendDeliveryInput = (form: Fields) => ({
  tenantId: text(form, "tenantId"),
  subscriptionId: text(form, "subscriptionId"),
  deliveryId: text(form, "deliveryId"),
});

// One-button forms (a row's Revoke, Disable, Cancel…): the row's ids travel in hidden fields, and a
// toggle posts the state it switches to, so the post means the same whatever the page showed since.

/** A task's Cancel or Rerun. */
export const taskRefInput = (form: Fields) => ({ taskId: text(form, "taskId") });

export const setTenantDisabledInput = (form: Fields) => ({ tenantId: text(form, "tenantId"), disabled: flag(form, "disabled") });

export const setOperatorDisabledInput = (form: Fields) => ({
  operatorId: text(form, "operatorId"),
  disabled: flag(form, "disabled"),
});

export const resetPasswordInput = (form: Fields) => ({ operatorId: text(form, "operatorId") });

export const removeMemberInput = (form: Fields) => ({ tenantId: text(form, "tenantId"), operatorId: text(form, "operatorId") });

export const revokeKeyInput = (form: Fields) => ({ tenantId: text(form, "tenantId"), keyId: text(form, "keyId") });

export const disableRouteInput = (form: Fields) => ({ tenantId: text(form, "tenantId"), toolName: text(form, "toolName") });

export const setRouteSchedulePausedInput = (form: Fields) => ({
  ...disableRouteInput(form),
  paused: flag(form, "paused"),
});

/** The operator's own connected client. */
export const revokeConnectionInput = (form: Fields) => ({ grantId: text(form, "grantId") });

/** A tenant admin revoking someone's connected client. */
export const revokeTenantConnectionInput = (form: Fields) => ({
  grantId: text(form, "grantId"),
  tenantId: text(form, "tenantId"),
});

/** A webhook subscription's Send test, Rotate secret and Delete. */
export const webhookRefInput = (form: Fields) => ({
  tenantId: text(form, "tenantId"),
  subscriptionId: text(form, "subscriptionId"),
});

export const setWebhookEnabledInput = (form: Fields) => ({ ...webhookRefInput(form), enabled: flag(form, "enabled") });
