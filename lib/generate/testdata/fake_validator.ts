import type { ValidatorClient, ValidatorVerdict } from "../../mcp/mod.ts";

/** A validator that answers from a function and records every asset it was asked about. */
export function fakeValidator(
  verdict: (asset: unknown) => ValidatorVerdict = () => ({ ok: true, errors: [] }),
): ValidatorClient & { assets: unknown[] } {
  const assets: unknown[] = [];
  return {
    transport: "memory",
    assets,
    call: () => Promise.resolve({ ok: true }),
    validateAsset(asset) {
      assets.push(asset);
      return Promise.resolve(verdict(asset));
    },
    close: () => Promise.resolve(),
  };
}
