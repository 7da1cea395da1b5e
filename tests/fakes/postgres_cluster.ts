/**
 * A throwaway local PostgreSQL cluster for tests and benchmarks: `initdb` into a temp
 * folder, trust auth on 127.0.0.1 only, a free port, its socket in the same folder; stopped
 * and removed by `stop()`. Postgres refuses to run as root, so as root the server runs as
 * the `postgres` user the Debian package creates.
 */

/** The folder holding `initdb`, `pg_ctl` and `postgres`, or `undefined` when there is none. */
export function findPostgresBin(): string | undefined {
  const candidates: string[] = [];
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((entry) => entry.name)
      .filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`));
  } catch {
    // no Debian layout
  }
  candidates.push(...(Deno.env.get("PATH") ?? "").split(":").filter(Boolean));
  for (const folder of candidates) {
    if (["initdb", "pg_ctl", "postgres"].every((name) => isExecutable(`${folder}/${name}`))) {
      return folder;
    }
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0) & 0o111) !== 0;
  } catch {
    return false;
  }
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** uid and gid of the `postgres` user, from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const line = Deno.readTextFileSync("/etc/passwd").split("\n")
      .find((entry) => entry.startsWith("postgres:"));
    if (!line) return undefined;
    const [, , uid, gid] = line.split(":");
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

export interface PostgresCluster {
  /** `postgres://syn@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  port: number;
  /** Stops the server and removes its folder; later calls do nothing. */
  stop(): Promise<void>;
  /** The same, synchronously: for an `unload` listener when a run ends early. */
  stopSync(): void;
}

export interface StartOptions {
  /** Trade durability for speed (fsync off): fine for tests, not for benchmarks. */
  fast?: boolean;
  /** Milliseconds to wait for each of initdb and start; default 60 s. */
  timeoutMs?: number;
}

async function run(
  program: string,
  args: string[],
  user: { uid: number; gid: number } | undefined,
  timeoutMs: number,
): Promise<void> {
  const child = new Deno.Command(program, {
    args,
    uid: user?.uid,
    gid: user?.gid,
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C", TZ: "UTC" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  });
  const result = await child.output();
  if (!result.success) {
    const decoder = new TextDecoder();
    throw new Error(
      `${program} ${args.join(" ")} exited ${result.code}:\n${decoder.decode(result.stdout)}${
        decoder.decode(result.stderr)
      }`,
    );
  }
}

/** Starts a cluster from the binaries in `bin`; throws with the tools' output if it cannot. */
export async function startPostgresCluster(
  bin: string,
  options: StartOptions = {},
): Promise<PostgresCluster> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const user = Deno.uid() === 0 ? postgresUser() : undefined;
  if (Deno.uid() === 0 && !user) throw new Error("running as root, and there is no postgres user");
  const folder = Deno.makeTempDirSync({ prefix: "syn_pg_" });
  if (user) Deno.chownSync(folder, user.uid, user.gid);
  const data = `${folder}/data`;
  const stopArgs = ["-D", data, "-m", "immediate", "-w", "stop"];
  let stopped = false;
  const stopCluster = async () => {
    if (stopped) return;
    stopped = true;
    try {
      await run(`${bin}/pg_ctl`, stopArgs, user, timeoutMs);
    } finally {
      Deno.removeSync(folder, { recursive: true });
    }
  };
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    new Deno.Command(`${bin}/pg_ctl`, {
      args: stopArgs,
      uid: user?.uid,
      gid: user?.gid,
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin", LC_ALL: "C", TZ: "UTC" },
    }).outputSync();
    Deno.removeSync(folder, { recursive: true });
  };
  try {
    await run(
      `${bin}/initdb`,
      ["-D", data, "-U", "syn", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"],
      user,
      timeoutMs,
    );
  } catch (error) {
    Deno.removeSync(folder, { recursive: true });
    throw error;
  }
  const settings = options.fast ? " -c fsync=off -c synchronous_commit=off" : "";
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    // A port found free may be taken before the server binds it: try another one.
    const port = freePort();
    try {
      await run(
        `${bin}/pg_ctl`,
        [
          "-D",
          data,
          "-l",
          `${folder}/server.log`,
          "-o",
          `-p ${port} -c listen_addresses=127.0.0.1 -k ${folder}${settings}`,
          "-w",
          "start",
        ],
        user,
        timeoutMs,
      );
      return {
        port,
        url: (database = "postgres") => `postgres://syn@127.0.0.1:${port}/${database}`,
        stop: stopCluster,
        stopSync,
      };
    } catch (error) {
      lastError = error;
    }
  }
  const log = (() => {
    try {
      return Deno.readTextFileSync(`${folder}/server.log`);
    } catch {
      return "";
    }
  })();
  Deno.removeSync(folder, { recursive: true });
  throw new Error(`the Postgres server did not start: ${lastError}\n${log}`);
}
