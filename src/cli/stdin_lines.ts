/** @module Reading the operator's answers at a prompt: stdin, one line at a time. */

/** A function that reads the next line of `stdin` (without its newline), or null at its end. */
export function stdinLines(stdin: ReadableStream<Uint8Array>): () => Promise<string | null> {
  let reader: ReadableStreamDefaultReader<string> | undefined;
  let buffer = "";
  let ended = false;
  return async () => {
    reader ??= stdin.pipeThrough(new TextDecoderStream()).getReader();
    while (!buffer.includes("\n") && !ended) {
      const { value, done } = await reader.read();
      if (done) ended = true;
      else buffer += value;
    }
    if (buffer === "" && ended) return null;
    const nl = buffer.indexOf("\n");
    const line = nl < 0 ? buffer : buffer.slice(0, nl);
    buffer = nl < 0 ? "" : buffer.slice(nl + 1);
    return line.replace(/\r$/, "");
  };
}
