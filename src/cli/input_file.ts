/**
 * @module The file a command reads its input from: FILE (relative to the working directory) or
 * stdin with `-`, as bytes, with the messages a person needs when it cannot be read.
 */
import { EngramError } from "../core/errors.ts";

/** Where the input comes from, and what the command adds to the general rules. */
export interface InputFileOptions {
  cwd: string;
  stdin: ReadableStream<Uint8Array>;
  /** Appended to the "does not exist" message: another way to give the input. */
  missingHint?: string;
  /** The largest file taken (checked before reading), and the message for a larger one. */
  maxBytes?: { bytes: number; message: (size: number) => string };
}

/** The bytes of `file`, or of stdin when `file` is `-`. */
export async function readInputFile(file: string, o: InputFileOptions): Promise<Uint8Array> {
  if (file === "-") return new Uint8Array(await new Response(o.stdin).arrayBuffer());
  const path = file.startsWith("/") ? file : `${o.cwd}/${file}`;
  const unreadable = (err: unknown) => explain(err, { file, path, missingHint: o.missingHint });
  if (o.maxBytes) {
    let size: number;
    try {
      const info = await Deno.stat(path);
      if (info.isDirectory) throw isDirectory(file);
      size = info.size;
    } catch (err) {
      if (err instanceof EngramError || !(err instanceof Deno.errors.NotFound)) throw err;
      throw unreadable(err);
    }
    if (size > o.maxBytes.bytes) throw new EngramError("file_too_large", o.maxBytes.message(size));
  }
  try {
    return await Deno.readFile(path);
  } catch (err) {
    throw unreadable(err);
  }
}

/** What went wrong reading `file`, as the error to show. */
function explain(
  err: unknown,
  o: { file: string; path: string; missingHint?: string },
): EngramError {
  if (err instanceof Deno.errors.NotFound) {
    return new EngramError(
      "not_found",
      `file ${o.file} does not exist${o.path === o.file ? "" : ` (tried ${o.path})`}${
        o.missingHint ?? ""
      }`,
    );
  }
  if (err instanceof Deno.errors.IsADirectory || (err as Error).message?.includes("directory")) {
    return isDirectory(o.file);
  }
  return new EngramError("internal", `cannot read ${o.file}: ${(err as Error).message}`, {
    cause: err,
  });
}

function isDirectory(file: string): EngramError {
  return new EngramError("invalid_argument", `${file} is a directory; give a file, or - for stdin`);
}
