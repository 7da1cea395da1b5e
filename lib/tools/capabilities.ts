/**
 * Capability gating (Spectator contracts §1.1, step 14) as a pure state machine:
 * request → pending unless already granted; grant moves pending → granted; pending never
 * holds a granted capability; revoke removes a grant. Every function returns new lists.
 */

/** The two capability lists of `State`. */
export interface CapabilityState {
  readonly capabilities_granted: readonly string[];
  readonly capabilities_pending: readonly string[];
}

/** What applying one NOTES action did; `applied: false` actions are ignored and traced. */
export interface CapabilityActionResult {
  state: CapabilityState;
  applied: boolean;
  reason?: string;
}

/** An empty state: nothing granted, nothing pending. */
export const NO_CAPABILITIES: CapabilityState = Object.freeze({
  capabilities_granted: Object.freeze([]) as readonly string[],
  capabilities_pending: Object.freeze([]) as readonly string[],
});

const MAX_CAPABILITY_LENGTH = 256;

/**
 * True for a well-formed capability: `net`, `net:<domain>`, or another `name[:scope]`
 * word; no white space or control characters, at most 256 characters.
 */
export function isCapability(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_CAPABILITY_LENGTH &&
    /^[a-z][a-z0-9_.-]*(:[^\s\p{Cc}]+)?$/u.test(value);
}

/** `net:Example.COM.` and `net:example.com` are one capability. */
export function normalizeCapability(capability: string): string {
  const colon = capability.indexOf(":");
  if (colon < 0 || capability.slice(0, colon) !== "net") return capability;
  return `net:${capability.slice(colon + 1).toLowerCase().replace(/\.$/, "")}`;
}

/** Asks for a capability: pending unless it is already granted (or pending). */
export function requestCapability(state: CapabilityState, capability: string): CapabilityState {
  const cap = normalizeCapability(capability);
  if (state.capabilities_granted.includes(cap) || state.capabilities_pending.includes(cap)) {
    return state;
  }
  return { ...state, capabilities_pending: [...state.capabilities_pending, cap] };
}

/** Grants a capability: added to granted, removed from pending. */
export function grantCapability(state: CapabilityState, capability: string): CapabilityState {
  const cap = normalizeCapability(capability);
  const granted = state.capabilities_granted.includes(cap)
    ? state.capabilities_granted
    : [...state.capabilities_granted, cap];
  return {
    capabilities_granted: granted,
    capabilities_pending: state.capabilities_pending.filter((item) => item !== cap),
  };
}

/** Withdraws a grant (and any pending request for it). */
export function revokeCapability(state: CapabilityState, capability: string): CapabilityState {
  const cap = normalizeCapability(capability);
  return {
    capabilities_granted: state.capabilities_granted.filter((item) => item !== cap),
    capabilities_pending: state.capabilities_pending.filter((item) => item !== cap),
  };
}

const ACTIONS: Record<string, (state: CapabilityState, capability: string) => CapabilityState> = {
  request_permission: requestCapability,
  grant_permission: grantCapability,
  revoke_permission: revokeCapability,
};

/**
 * Applies one NOTES action string (`request_permission:<cap>`, `grant_permission:<cap>`,
 * `revoke_permission:<cap>`). Anything else — an unknown action, a malformed
 * capability — leaves the state as it was, with `applied: false` and the reason.
 */
export function applyCapabilityAction(
  state: CapabilityState,
  action: unknown,
): CapabilityActionResult {
  if (typeof action !== "string") {
    return { state, applied: false, reason: "action is not a string" };
  }
  const colon = action.indexOf(":");
  const verb = colon < 0 ? action : action.slice(0, colon);
  const apply = Object.hasOwn(ACTIONS, verb) ? ACTIONS[verb] : undefined;
  if (!apply) return { state, applied: false, reason: `unknown action: ${verb.slice(0, 64)}` };
  const capability = action.slice(colon + 1);
  if (colon < 0 || !isCapability(capability)) {
    return { state, applied: false, reason: "malformed capability" };
  }
  return { state: apply(state, capability), applied: true };
}
