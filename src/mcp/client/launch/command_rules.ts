/**
 * @module The launch rules about the shape of a stdio server's `command` alone (docs/upstream.md#launch-rules): one executable token, no shell metacharacters, not a shell, script host or
 * launcher. They need no I/O, so the importer applies them too.
 */
import { LAUNCH_HELPERS } from "../../../config/permissions.ts";

/** One evaluated rule: what was checked, whether it passed, and the fix when it did not. */
export interface LaunchCheck {
  rule: string;
  ok: boolean;
  /** What was found, naming the thing. Config text is JSON-quoted, never printed raw. */
  detail: string;
  /** One line saying how to fix it; empty when the check passed. */
  fix: string;
}

/** Shells: each runs whatever text it is given. */
const SHELLS = new Set([
  "sh",
  "bash",
  "rbash",
  "zsh",
  "dash",
  "ash",
  "fish",
  "ksh",
  "mksh",
  "pdksh",
  "oksh",
  "csh",
  "tcsh",
  "yash",
  "nu",
  "elvish",
  "xonsh",
  "pwsh",
  "powershell",
  "cmd",
  // Multi-call binaries whose applets include a shell.
  "busybox",
  "toybox",
]);

/** Script hosts: they run script text from their arguments. */
const SCRIPT_HOSTS = new Set(["osascript", "wscript", "cscript", "mshta"]);

/** Launchers: they start another command named in their arguments, hiding what really runs. */
const LAUNCHERS = new Set([
  "env",
  "sudo",
  "doas",
  "su",
  "runuser",
  "pkexec",
  "nohup",
  "setsid",
  "nice",
  "ionice",
  "timeout",
  "stdbuf",
  "xargs",
  "chroot",
  "unshare",
  "nsenter",
  "script",
  "flock",
  "taskset",
  "chrt",
  "strace",
  "firejail",
  "systemd-run",
]);

/** Characters a shell would interpret; engram never runs one, so they can only be a mistake. */
const METACHARACTERS = ["|", "&", ";", "<", ">", "$", "`", "(", ")", "{", "}", "\n", "\r", "\0"];

const SPLIT_FIX =
  "put the executable in command and each argument in args; engram never runs a shell";

/**
 * The name a command is known by, for the block lists: its last path segment, lower-cased,
 * without a Windows extension or a version suffix (`/bin/bash` → bash, `zsh-5.9` → zsh,
 * `PowerShell.exe` → powershell).
 */
export function programName(command: string): string {
  const base = command.split(/[\\/]/).pop()!.toLowerCase();
  return base.replace(/\.(exe|com|cmd|bat|ps1)$/, "").replace(/[-_.]?\d+(\.\d+)*$/, "") || base;
}

/** The metacharacters in `command`, described for a message (`";"`, `a newline`). */
export function metacharactersIn(command: string): string[] {
  return METACHARACTERS.filter((c) => command.includes(c)).map((c) =>
    c === "\n"
      ? "a newline"
      : c === "\r"
      ? "a carriage return"
      : c === "\0"
      ? "a NUL byte"
      : `"${c}"`
  );
}

/** The command-shape checks, in order: command_token, metacharacters, shell. */
export function commandChecks(command: string | readonly string[]): LaunchCheck[] {
  return [tokenCheck(command), metacharacterCheck(command), shellCheck(command)];
}

function tokenCheck(command: string | readonly string[]): LaunchCheck {
  const rule = "command_token";
  if (typeof command !== "string") {
    return fail(rule, {
      detail: `command is a list (${JSON.stringify(command)}), which is never split at run time`,
      fix: `put the executable in command and the rest in args, e.g. command: ${
        JSON.stringify(command[0] ?? "npx")
      }, args: ${JSON.stringify(command.slice(1))}`,
    });
  }
  if (command.trim() === "") {
    return fail(rule, { detail: "command is empty", fix: "name the server's executable" });
  }
  // Newlines are reported by the metacharacters rule: to a shell they end a command.
  if (/[^\S\n\r]/.test(command)) {
    return fail(rule, {
      detail: `command ${JSON.stringify(command)} is more than one word`,
      fix: SPLIT_FIX,
    });
  }
  if (command.includes("/") && !command.startsWith("/")) {
    return fail(rule, {
      detail: `command ${JSON.stringify(command)} is a relative path`,
      fix: "write an absolute path, or a name found on PATH",
    });
  }
  return pass(rule, `command ${JSON.stringify(command)} is one executable token`);
}

function metacharacterCheck(command: string | readonly string[]): LaunchCheck {
  const rule = "metacharacters";
  const text = typeof command === "string" ? command : command.join(" ");
  const found = metacharactersIn(text);
  if (found.length) {
    return fail(rule, {
      detail: `command ${JSON.stringify(text)} holds shell metacharacters (${found.join(", ")})`,
      fix: SPLIT_FIX,
    });
  }
  return pass(rule, "command holds no shell metacharacters");
}

function shellCheck(command: string | readonly string[]): LaunchCheck {
  const rule = "shell";
  const text = typeof command === "string" ? command : command[0] ?? "";
  const name = programName(text);
  const quoted = JSON.stringify(text);
  if (SHELLS.has(name)) {
    return fail(rule, {
      detail: `command ${quoted} is a shell`,
      fix: "run the server's own executable with its arguments in args",
    });
  }
  if (SCRIPT_HOSTS.has(name)) {
    return fail(rule, {
      detail: `command ${quoted} is a script host`,
      fix: "run the server's own executable with its arguments in args",
    });
  }
  if (LAUNCHERS.has(name)) {
    return fail(rule, {
      detail: `command ${quoted} launches another command named in its arguments, hiding what runs`,
      fix: "put that command in command and its arguments in args (env variables go in env)",
    });
  }
  const helper = LAUNCH_HELPERS.get(name);
  if (helper) {
    return fail(rule, { detail: `command ${quoted} is a program engram runs itself`, fix: helper });
  }
  return pass(rule, `command ${quoted} is not a shell, script host or launcher`);
}

/** A passed check. */
export function pass(rule: string, detail: string): LaunchCheck {
  return { rule, ok: true, detail, fix: "" };
}

/** A failed check: what was found, and how to fix it. */
export function fail(rule: string, found: { detail: string; fix: string }): LaunchCheck {
  return { rule, ok: false, detail: found.detail, fix: found.fix };
}
