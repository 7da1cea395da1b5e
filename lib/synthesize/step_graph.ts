import { SynError } from "../core/mod.ts";

/** A step as a composite tool lists it. */
export interface StepNode {
  id: string;
  depends_on?: readonly string[];
}

/**
 * The steps of a composite tool as a DAG (the spec's networkx graph): a topological
 * order and ancestry, from which the checks decide which steps may run together. The
 * schedule itself is the composite plan's (`lib/tools/composite_plan.ts`). Throws `SynError`
 * `invalid_steps` for a duplicate id, a dependency on a missing step, or a cycle (named).
 */
export class StepGraph {
  readonly order: readonly string[];
  readonly #ancestors = new Map<string, Set<string>>();
  readonly #depends = new Map<string, readonly string[]>();

  constructor(steps: readonly StepNode[]) {
    for (const step of steps) {
      if (this.#depends.has(step.id)) {
        throw new SynError("invalid_steps", `Duplicate step id: ${step.id}`);
      }
      this.#depends.set(step.id, [...new Set(step.depends_on ?? [])]);
    }
    for (const [id, depends] of this.#depends) {
      for (const dependency of depends) {
        if (!this.#depends.has(dependency)) {
          throw new SynError(
            "invalid_steps",
            `Step ${id} depends on a missing step: ${dependency}`,
          );
        }
      }
    }
    this.order = this.#topologicalOrder(steps.map((step) => step.id));
    for (const id of this.order) {
      const ancestors = new Set<string>();
      for (const dependency of this.#depends.get(id)!) {
        ancestors.add(dependency);
        for (const above of this.#ancestors.get(dependency)!) ancestors.add(above);
      }
      this.#ancestors.set(id, ancestors);
    }
  }

  /** Kahn's algorithm, ties broken by the steps' own order; a leftover means a cycle. */
  #topologicalOrder(ids: readonly string[]): string[] {
    const waiting = new Map(ids.map((id) => [id, this.#depends.get(id)!.length]));
    const dependents = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (const id of ids) {
      for (const dependency of this.#depends.get(id)!) dependents.get(dependency)!.push(id);
    }
    const ready = ids.filter((id) => waiting.get(id) === 0);
    const order: string[] = [];
    while (ready.length) {
      const id = ready.shift()!;
      order.push(id);
      for (const next of dependents.get(id)!) {
        waiting.set(next, waiting.get(next)! - 1);
        if (waiting.get(next) === 0) ready.push(next);
      }
    }
    if (order.length < ids.length) {
      const cycle = this.#findCycle(ids.filter((id) => !order.includes(id)));
      throw new SynError("invalid_steps", `Steps form a cycle: ${cycle.join(" → ")}`);
    }
    return order;
  }

  #findCycle(candidates: readonly string[]): string[] {
    const path: string[] = [];
    let current = candidates[0];
    while (!path.includes(current)) {
      path.push(current);
      current = this.#depends.get(current)!.find((dependency) => candidates.includes(dependency))!;
    }
    return [...path.slice(path.indexOf(current)), current].reverse();
  }

  /** True when `ancestor` must finish before `id` starts (directly or through others). */
  isAncestor(ancestor: string, id: string): boolean {
    return this.#ancestors.get(id)?.has(ancestor) ?? false;
  }

  /** The spec's rule: two steps may run at once only if neither is an ancestor of the other. */
  canRunTogether(a: string, b: string): boolean {
    return a !== b && !this.isAncestor(a, b) && !this.isAncestor(b, a);
  }
}
