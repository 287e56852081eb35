/**
 * @module The secret key that seals what engram keeps for upstream OAuth logins
 * (docs/upstream.md#oauth-upstreams): `ENGRAM_SECRET_KEY` (the base64 of 32 bytes) when set, else a
 * key file in the data directory, `secret.key`, created with mode 0600 the first time a secret is
 * sealed. Read here only; a malformed key is refused with what is wrong and how to make a good one.
 */
import { EngramError } from "../core/errors.ts";
import type { EnvSnapshot } from "./env.ts";
import { joinPath } from "./paths.ts";

/** The variable that holds the key (it wins over the key file). */
export const SECRET_KEY_VARIABLE = "ENGRAM_SECRET_KEY";
/** The key file's name in the data directory. */
export const SECRET_KEY_FILE = "secret.key";

const KEY_BYTES = 32;
const MAKE_ONE = "make one with: openssl rand -base64 32";

/** A loaded secret key and where it came from (for messages; never the key itself). */
export interface SecretKey {
  bytes: Uint8Array;
  /** `ENGRAM_SECRET_KEY`, or the key file's path. */
  where: string;
}

/** Where the key comes from, and how to read it (creating the file when asked to). */
export interface SecretKeySource {
  /** `ENGRAM_SECRET_KEY`, or the key file's path: for messages. */
  readonly where: string;
  /** The key; null when there is none yet (no variable, no file). Malformed: `invalid_argument`. */
  read(): Promise<SecretKey | null>;
  /** The key, creating the key file (mode 0600) when there is none. */
  readOrCreate(): Promise<SecretKey>;
}

/** The key source for `dataDir` under `env`. */
export function secretKeySource(env: EnvSnapshot, dataDir: string): SecretKeySource {
  const value = env.get(SECRET_KEY_VARIABLE);
  // Set to the empty string counts as unset, as for every ENGRAM_* variable.
  if (value !== undefined && value !== "") {
    const key = (): Promise<SecretKey> => {
      try {
        const bytes = decodeKey(value, `${SECRET_KEY_VARIABLE} is malformed`);
        return Promise.resolve({ bytes, where: SECRET_KEY_VARIABLE });
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return { where: SECRET_KEY_VARIABLE, read: key, readOrCreate: key };
  }
  const file = joinPath(dataDir, SECRET_KEY_FILE);
  return {
    where: file,
    read: () => readKeyFile(file),
    readOrCreate: async () => (await readKeyFile(file)) ?? await createKeyFile(file),
  };
}

/** The 32 bytes of a base64 key, or `invalid_argument` naming `what` and how to make one. */
function decodeKey(text: string, what: string): Uint8Array {
  const trimmed = text.trim();
  let bytes: Uint8Array | null = null;
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    try {
      const standard = trimmed.replaceAll("-", "+").replaceAll("_", "/");
      bytes = Uint8Array.from(atob(standard), (c) => c.charCodeAt(0));
    } catch {
      bytes = null;
    }
  }
  if (bytes === null || bytes.length !== KEY_BYTES) {
    const got = bytes === null ? "text that is not base64" : `${bytes.length} bytes`;
    throw new EngramError(
      "invalid_argument",
      `${what}: it must be the base64 of ${KEY_BYTES} random bytes, got ${got}; ${MAKE_ONE}`,
    );
  }
  return bytes;
}

async function readKeyFile(file: string): Promise<SecretKey | null> {
  let text: string;
  try {
    const info = await Deno.stat(file);
    // Like ssh with a private key: a key others can read is no secret, so it is not used.
    if (info.mode !== null && (info.mode & 0o077) !== 0) {
      throw new EngramError(
        "forbidden",
        `the key file ${file} can be read by other users (mode ${
          (info.mode & 0o777).toString(8)
        }); make it private with: chmod 600 ${file}`,
      );
    }
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    if (err instanceof EngramError) throw err;
    throw new EngramError(
      "internal",
      `cannot read the key file ${file}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  return { bytes: decodeKey(text, `the key file ${file} is malformed`), where: file };
}

/**
 * Writes a new random key: whole into a private temporary file, then linked to its name, which
 * fails if the name exists — so a process that lost the race to create it reads the winner's
 * complete key, never half of one.
 */
async function createKeyFile(file: string): Promise<SecretKey> {
  const bytes = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  const text = `${btoa(String.fromCharCode(...bytes))}\n`;
  const temporary = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text, { createNew: true, mode: 0o600 });
    await Deno.link(temporary, file);
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      const winner = await readKeyFile(file);
      if (winner) return winner;
    }
    throw new EngramError(
      "internal",
      `cannot create the key file ${file}: ${
        (err as Error).message
      }; set ${SECRET_KEY_VARIABLE} instead (${MAKE_ONE})`,
      { cause: err },
    );
  } finally {
    await Deno.remove(temporary).catch(() => {});
  }
  return { bytes, where: file };
}
