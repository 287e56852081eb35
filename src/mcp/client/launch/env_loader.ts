/**
 * @module The `env_loader` launch rule (docs/upstream.md#launch-rules): env keys that steer a
 * loader or an interpreter decide what code runs as much as `command` and `args` do — one value of
 * `NODE_OPTIONS` (`--require ./evil.cjs`) or `LD_PRELOAD` runs other code under a reviewed
 * command. Such a key is refused unless the server's `allow_env` names it, and a key allow_env
 * names must be written literally (no `${VAR}`: that value would be engram's, unsigned). Names are
 * compared without case: Windows reads `Path` as `PATH`, npm `npm_config_*`, curl `https_proxy`.
 */
import { referencedVariables } from "../../../config/mcp_servers.ts";
import { fail, type LaunchCheck, pass } from "./command_rules.ts";

/** One key (or, ending in `*`, every key with that prefix) and what it lets a value do. */
interface LoaderKey {
  key: string;
  why: string;
}

/** Every key engram treats as steering a loader or interpreter, with the reason. */
export const LOADER_KEYS: readonly LoaderKey[] = [
  // The dynamic loaders: load any shared object into any dynamically linked program.
  { key: "LD_*", why: "the Linux dynamic loader loads libraries it names (LD_PRELOAD, LD_AUDIT)" },
  { key: "DYLD_*", why: "the macOS dynamic loader loads libraries it names" },
  { key: "GCONV_PATH", why: "glibc loads iconv modules from it" },
  { key: "PATH", why: "it decides which executable every name the server runs resolves to" },
  { key: "HOME", why: "dotfiles are read from it (.npmrc node-options, .gitconfig, .pythonrc)" },
  { key: "XDG_CONFIG_HOME", why: "config files are read from it (git's core.sshCommand)" },
  // Node and the package runners: what `npx -y pkg` fetches is what runs.
  { key: "NODE_OPTIONS", why: "node adds its flags, --require and --import among them" },
  { key: "NODE_PATH", why: "node resolves modules from it" },
  { key: "NPM_CONFIG_*", why: "npm and npx take settings from it (registry, node-options)" },
  { key: "NODE_PRESERVE_SYMLINKS", why: "node resolves modules through the links it keeps" },
  { key: "NODE_REPL_EXTERNAL_MODULE", why: "node loads the module it names instead of its REPL" },
  {
    key: "NODE_EXTRA_CA_CERTS",
    why: "node trusts the CAs it adds, so a fetched package can be swapped",
  },
  {
    key: "ELECTRON_RUN_AS_NODE",
    why: "an Electron app runs as node, running the script it is given",
  },
  { key: "BUN_CONFIG_REGISTRY", why: "bunx fetches packages from it" },
  { key: "BUN_*", why: "bun and bunx take settings from it (registry, install cache, preload)" },
  { key: "YARN_*", why: "yarn and yarn dlx take settings from it (registry, plugins, yarnPath)" },
  { key: "UV_INDEX*", why: "uvx fetches packages from it" },
  { key: "UV_DEFAULT_INDEX", why: "uvx fetches packages from it" },
  { key: "UV_EXTRA_INDEX_URL", why: "uvx fetches packages from it" },
  { key: "UV_FIND_LINKS", why: "uvx fetches packages from it" },
  { key: "UV_*", why: "uv and uvx take settings from it (python, cache, config file, index)" },
  { key: "PIP_INDEX_URL", why: "pip and pipx fetch packages from it" },
  { key: "PIP_EXTRA_INDEX_URL", why: "pip and pipx fetch packages from it" },
  { key: "PIP_FIND_LINKS", why: "pip and pipx fetch packages from it" },
  { key: "PIP_CONFIG_FILE", why: "pip reads its settings (index, find-links) from it" },
  { key: "PIPX_*", why: "pipx takes settings from it (its home, default python, venvs run)" },
  { key: "DENO_DIR", why: "deno runs modules from the cache it names" },
  { key: "DENO_V8_FLAGS", why: "deno passes it to the V8 engine" },
  { key: "DENO_*", why: "deno takes settings from it (cache, registries, certificates, TLS)" },
  // Go, Rust, Ruby's bundler, Java: toolchains and fetchers that decide what is built and run.
  { key: "GOFLAGS", why: "go adds its flags (-toolexec runs a program)" },
  { key: "GOTOOLCHAIN", why: "go downloads and runs the toolchain it names" },
  { key: "GOPROXY", why: "go fetches modules from it" },
  { key: "RUSTC_WRAPPER", why: "cargo runs it in place of rustc" },
  {
    key: "CARGO_*",
    why: "cargo takes settings from it (registries, build.rustc-wrapper, target runners)",
  },
  { key: "BUNDLE_*", why: "bundler takes settings from it (gemfile, path, mirrors)" },
  { key: "JAVA_HOME", why: "java launchers run the JVM found in it" },
  // Build tools a package's install step runs (node-gyp, pip building from source).
  { key: "CC", why: "builds run it as the C compiler" },
  { key: "CXX", why: "builds run it as the C++ compiler" },
  { key: "LD", why: "builds run it as the linker" },
  { key: "PYTHON", why: "node-gyp and builds run the python it names" },
  { key: "MAKE", why: "builds run it as make" },
  { key: "CFLAGS", why: "builds pass it to the compiler (-fplugin loads code)" },
  { key: "LDFLAGS", why: "builds pass it to the linker (libraries linked in)" },
  // TLS and proxies: whoever they trust or route through can swap a package being fetched.
  {
    key: "SSL_CERT_FILE",
    why: "OpenSSL trusts the CAs in it, so a fetched package can be swapped",
  },
  { key: "SSL_CERT_DIR", why: "OpenSSL trusts the CAs in it, so a fetched package can be swapped" },
  { key: "REQUESTS_CA_BUNDLE", why: "python requests trusts the CAs in it" },
  { key: "CURL_CA_BUNDLE", why: "curl trusts the CAs in it" },
  { key: "HTTPS_PROXY", why: "fetches go through the proxy it names, which can swap a package" },
  { key: "HTTP_PROXY", why: "fetches go through the proxy it names, which can swap a package" },
  { key: "ALL_PROXY", why: "fetches go through the proxy it names, which can swap a package" },
  { key: "OPENSSL_CONF", why: "OpenSSL reads its config (engines and providers loaded) from it" },
  { key: "OPENSSL_MODULES", why: "OpenSSL loads provider modules from it" },
  { key: "OPENSSL_ENGINES", why: "OpenSSL loads engines from it" },
  // Containers: the daemon or context decides what runs, and where.
  { key: "DOCKER_*", why: "docker takes its daemon, context and config from it (DOCKER_HOST)" },
  // Python.
  { key: "PYTHONPATH", why: "python imports modules from it" },
  { key: "PYTHONHOME", why: "python loads its standard library from it" },
  { key: "PYTHONSTARTUP", why: "python runs the file it names" },
  { key: "PYTHONUSERBASE", why: "python imports user site-packages (and runs .pth files) from it" },
  { key: "PYTHONWARNINGS", why: "python imports the module a warning category names" },
  { key: "PYTHONBREAKPOINT", why: "python calls the function it names on breakpoint()" },
  { key: "PYTHONPYCACHEPREFIX", why: "python runs cached bytecode from it" },
  { key: "PYTHON*", why: "python takes settings from it (paths, startup files, hooks)" },
  // Perl, Ruby, Lua, PHP.
  { key: "PERL5OPT", why: "perl adds its switches (-M loads a module)" },
  { key: "PERL5LIB", why: "perl loads modules from it" },
  { key: "PERLLIB", why: "perl loads modules from it" },
  { key: "PERL5DB", why: "perl runs it as debugger code" },
  { key: "RUBYOPT", why: "ruby adds its options (-r loads a library)" },
  { key: "RUBYLIB", why: "ruby loads libraries from it" },
  { key: "GEM_HOME", why: "ruby loads gems from it" },
  { key: "GEM_PATH", why: "ruby loads gems from it" },
  { key: "LUA_INIT*", why: "lua runs it (or the file it names) first" },
  { key: "LUA_PATH*", why: "lua loads modules from it" },
  { key: "LUA_CPATH*", why: "lua loads native modules from it" },
  { key: "PHPRC", why: "php reads its ini (auto_prepend_file) from it" },
  { key: "PHP_INI_SCAN_DIR", why: "php reads more ini files from it" },
  // The JVM and .NET.
  { key: "JAVA_TOOL_OPTIONS", why: "the JVM adds its options (-javaagent loads code)" },
  { key: "_JAVA_OPTIONS", why: "the JVM adds its options (-javaagent loads code)" },
  { key: "JDK_JAVA_OPTIONS", why: "the java launcher adds its options (-javaagent loads code)" },
  { key: "CLASSPATH", why: "the JVM loads classes from it" },
  { key: "DOTNET_STARTUP_HOOKS", why: ".NET runs the assemblies it names" },
  { key: "DOTNET_ADDITIONAL_DEPS", why: ".NET loads more assemblies from it" },
  { key: "CORECLR_PROFILER*", why: ".NET loads the profiler library it names" },
  // Shells a server starts (system(), child_process with shell: true).
  { key: "BASH_ENV", why: "a non-interactive bash runs the file it names" },
  { key: "ENV", why: "a POSIX sh runs the file it names" },
  { key: "SHELLOPTS", why: "bash turns on its options (xtrace runs PS4)" },
  { key: "BASHOPTS", why: "bash turns on its options" },
  { key: "PS4", why: "bash expands it, command substitutions included, under xtrace" },
  { key: "ZDOTDIR", why: "zsh runs its startup files (.zshenv) from it" },
  // git, which MCP servers for repositories run.
  { key: "GIT_SSH_COMMAND", why: "git runs it" },
  { key: "GIT_SSH", why: "git runs it" },
  { key: "GIT_ASKPASS", why: "git runs it" },
  { key: "SSH_ASKPASS", why: "ssh runs it" },
  { key: "GIT_EXEC_PATH", why: "git runs its subcommands from it" },
  {
    key: "GIT_CONFIG*",
    why: "git takes settings from it (core.sshCommand, core.fsmonitor run code)",
  },
  { key: "GIT_EXTERNAL_DIFF", why: "git runs it" },
  { key: "GIT_PROXY_COMMAND", why: "git runs it" },
  { key: "GIT_TEMPLATE_DIR", why: "git copies hooks from it into new repositories" },
  { key: "GIT_EDITOR", why: "git runs it" },
  { key: "GIT_SEQUENCE_EDITOR", why: "git runs it" },
  { key: "GIT_PAGER", why: "git runs it" },
  {
    key: "GIT_*",
    why: "git takes its repository, hooks and settings from it (GIT_DIR runs its hooks)",
  },
];

/** Why `key` steers a loader or interpreter (the entry that matched), or null when it does not. */
export function loaderKey(key: string): { entry: string; why: string } | null {
  const upper = key.toUpperCase();
  for (const k of LOADER_KEYS) {
    const hit = k.key.endsWith("*") ? upper.startsWith(k.key.slice(0, -1)) : upper === k.key;
    if (hit) return { entry: k.key, why: k.why };
  }
  return null;
}

/**
 * The `env_loader` check: every env key of the server that steers a loader or interpreter must be
 * named (exactly as written) in its `allow_env`, and a key allow_env names must hold its value
 * literally — a `${VAR}` there would take the value from engram's environment at each start,
 * which no signature covers.
 */
export function envLoaderCheck(
  server: { name: string; env: Record<string, string>; allow_env?: readonly string[] },
): LaunchCheck {
  const allowed = new Set(server.allow_env ?? []);
  const refused = Object.keys(server.env).filter((k) => loaderKey(k) && !allowed.has(k));
  if (refused.length === 0) {
    const referring = Object.keys(server.env).filter((k) =>
      allowed.has(k) && referencedVariables(server.env[k]).length > 0
    );
    if (referring.length) {
      const key = referring[0];
      const names = referencedVariables(server.env[key]).map((v) => `\${${v}}`).join(", ");
      return fail("env_loader", {
        detail:
          `env ${JSON.stringify(key)} is named in allow_env but its value refers to ${names}, ` +
          "which engram's environment would supply at each start, unsigned",
        fix:
          `write the value of ${key} literally in the entry (no \${VAR}), then sign the launch again: engram mcp sign ${server.name} --key FILE`,
      });
    }
    const kept = Object.keys(server.env).filter((k) => loaderKey(k));
    return pass(
      "env_loader",
      kept.length
        ? `loader keys ${kept.join(", ")} are named in allow_env`
        : "no env key steers a loader or interpreter",
    );
  }
  const first = refused[0];
  return fail("env_loader", {
    detail: `env ${JSON.stringify(first)} steers a loader or interpreter (${
      loaderKey(first)!.why
    })${refused.length > 1 ? ` (and ${refused.slice(1).join(", ")})` : ""}`,
    fix:
      `remove it from env, or after reviewing its value add it to the server's allow_env (allow_env: [${
        refused.join(", ")
      }]) and sign the launch again: engram mcp sign ${server.name} --key FILE`,
  });
}
