/**
 * @module A throwaway PostgreSQL cluster for one test process: Debian's binaries
 * (/usr/lib/postgresql/<v>/bin, not on PATH), initdb as the `postgres` user when run as root (initdb
 * refuses root) in a directory that user owns, fsync off, a loopback port. The schema is migrated
 * once into a template database, and every test gets its own copy (`CREATE DATABASE … TEMPLATE`),
 * which takes milliseconds where migrating would take far longer. The cluster is stopped and its
 * directory removed when the process unloads, or, when it is killed, by a watcher once it is gone.
 *
 * When PostgreSQL cannot be had here, `startCluster` returns the reason instead (printed by the
 * callers as `skipping …`, which .ci/run repeats in its last lines).
 */
import postgres from "postgres";
import { migrate } from "../../../src/storage/postgres/migrations.ts";

/** A running cluster with a migrated template. */
export interface Cluster {
  /** The cluster's major version. */
  version: string;
  /** A URL of database `name` on the cluster. */
  url(name: string): string;
  /** A new database copied from the migrated template; its URL and a function dropping it. */
  createDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }>;
  /** A new empty database (not migrated). */
  createEmptyDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }>;
}

/** The template every test database is copied from. */
const TEMPLATE = "engram_template";

/** The newest Debian PostgreSQL binary directory, or null. */
export function findBinaries(): { bin: string; version: string } | null {
  let best: { bin: string; version: string } | null = null;
  try {
    for (const entry of Deno.readDirSync("/usr/lib/postgresql")) {
      const bin = `/usr/lib/postgresql/${entry.name}/bin`;
      try {
        Deno.statSync(`${bin}/initdb`);
      } catch {
        continue;
      }
      if (best === null || Number(entry.name) > Number(best.version)) {
        best = { bin, version: entry.name };
      }
    }
  } catch {
    return null;
  }
  return best;
}

/** Runs a command (as `user` through runuser when given), failing with its output. */
function run(cmd: string, args: string[], user: string | null): void {
  const [file, argv] = user === null ? [cmd, args] : ["runuser", ["-u", user, "--", cmd, ...args]];
  const out = new Deno.Command(file, { args: argv, stdout: "piped", stderr: "piped" }).outputSync();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    throw new Error(`${cmd} ${args.join(" ")} failed: ${text.trim()}`);
  }
}

/** The uid and gid of a user, or null when there is none. */
function userIds(name: string): { uid: number; gid: number } | null {
  try {
    for (const line of Deno.readTextFileSync("/etc/passwd").split("\n")) {
      const f = line.split(":");
      if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]) };
    }
  } catch {
    // No passwd file: no such user.
  }
  return null;
}

/**
 * Stops the cluster and removes its directory once this process is gone however it ended: a
 * process killed (a timeout, SIGKILL) runs no unload handler. A shell of its own session, so
 * killing this process's group does not take it along; it holds nothing this process waits for.
 */
function watchOver(cluster: { dir: string; bin: string; user: string | null }): void {
  const quote = (s: string) => `'${s.replaceAll("'", `'\''`)}'`;
  const pgCtl = [
    ...(cluster.user === null ? [] : ["runuser", "-u", cluster.user, "--"]),
    `${cluster.bin}/pg_ctl`,
    "-D",
    `${cluster.dir}/data`,
    "-m",
    "immediate",
    "stop",
  ].map(quote).join(" ");
  const script = `while kill -0 ${Deno.pid} 2>/dev/null; do sleep 1; done
    ${pgCtl} >/dev/null 2>&1; rm -rf ${quote(cluster.dir)}`;
  try {
    new Deno.Command("setsid", {
      args: ["sh", "-c", script],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn().unref();
  } catch {
    // No setsid: the unload handler alone cleans up, as long as this process ends normally.
  }
}

/** A free loopback port (the kernel's pick; released just before PostgreSQL binds it). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts the cluster and migrates the template, or says why it cannot. Call once per test module,
 * at its top level (before any test), so the server and the admin connection belong to no test.
 */
export async function startCluster(): Promise<Cluster | { skip: string }> {
  const found = findBinaries();
  if (found === null) {
    return {
      skip:
        "skipping the PostgreSQL tests: no /usr/lib/postgresql/<v>/bin/initdb (install Debian's postgresql package)",
    };
  }
  // `id -u`, not Deno.uid(): the test command grants no --allow-sys.
  const id = new Deno.Command("id", { args: ["-u"], stdout: "piped", stderr: "null" }).outputSync();
  const root = new TextDecoder().decode(id.stdout).trim() === "0";
  const owner = root ? userIds("postgres") : null;
  if (root && owner === null) {
    return { skip: "skipping the PostgreSQL tests: running as root and there is no postgres user" };
  }
  const dir = await Deno.makeTempDir({ prefix: "engram-pg-" });
  const user = root ? "postgres" : null;
  let started = false;
  const stop = () => {
    try {
      if (started) {
        run(`${found.bin}/pg_ctl`, ["-D", `${dir}/data`, "-m", "immediate", "stop"], user);
      }
    } catch {
      // Already gone.
    }
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // Nothing to remove.
    }
  };
  try {
    if (owner) Deno.chownSync(dir, owner.uid, owner.gid);
    run(`${found.bin}/initdb`, [
      "-D",
      `${dir}/data`,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ], user);
    const port = freePort();
    const settings = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${dir}`,
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=200",
      "-c shared_buffers=32MB",
    ].join(" ");
    run(`${found.bin}/pg_ctl`, [
      "-D",
      `${dir}/data`,
      "-o",
      settings,
      "-l",
      `${dir}/server.log`,
      "-w",
      "-s",
      "start",
    ], user);
    started = true;
    globalThis.addEventListener("unload", stop);
    watchOver({ dir, bin: found.bin, user });
    const url = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
    const admin = postgres(url("postgres"), { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${TEMPLATE}`);
    const template = postgres(url(TEMPLATE), { max: 1, onnotice: () => {} });
    try {
      await migrate(template);
    } finally {
      await template.end();
    }
    let next = 0;
    const create = async (from: string | null) => {
      const name = `engram_t${Deno.pid}_${next++}`;
      await admin.unsafe(
        from === null ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${from}`,
      );
      return {
        name,
        url: url(name),
        drop: async () => void await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      };
    };
    return {
      version: found.version,
      url,
      createDatabase: () => create(TEMPLATE),
      createEmptyDatabase: () => create(null),
    };
  } catch (err) {
    stop();
    return { skip: `skipping the PostgreSQL tests: could not start a cluster (${err})` };
  }
}
