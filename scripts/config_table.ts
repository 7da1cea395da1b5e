/**
 * The configuration table of `docs/configuration.md`, rendered from `CONFIG_VARIABLES`
 * (a test checks that the page holds exactly this). Run it to print the table:
 * `deno run scripts/config_table.ts`.
 */
import { CONFIG_VARIABLES } from "../lib/core/mod.ts";

const cell = (text: string) => text.replaceAll("|", "\\|");

/** The Markdown table: one row per variable, the system's own last. */
export function configTableMarkdown(): string {
  const rows = CONFIG_VARIABLES.map((entry) => {
    const secret = entry.secret === "value"
      ? "yes"
      : entry.secret === "credentials"
      ? "its user and password"
      : "no";
    const name = entry.system ? `\`${entry.name}\` (system)` : `\`${entry.name}\``;
    return `| ${name} | ${cell(entry.about)} | ${cell(entry.type)} | ${
      cell(entry.default || "—")
    } | ${secret} | ${entry.commands.join(", ")} |`;
  });
  return [
    "| variable | what it is | values | unset or empty | secret | read by |",
    "|---|---|---|---|---|---|",
    ...rows,
  ].join("\n") + "\n";
}

if (import.meta.main) console.log(configTableMarkdown());
