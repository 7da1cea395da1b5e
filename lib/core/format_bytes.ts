/**
 * A byte count as people read limits: `1 MiB`, `256 KiB`, else `1500 bytes` — exact, so
 * a message never rounds a limit it names.
 */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
