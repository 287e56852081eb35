/**
 * @module What a named tool or choice is for ("PostgreSQL" → database, "tabs" → indentation), so
 * facts about the same slot share a key and a newer choice supersedes the older one.
 */
import { singular } from "../../core/text/terms.ts";

/** Category → the lowercase names that belong to it. */
const CATEGORY_NAMES: Readonly<Record<string, string>> = {
  database:
    "postgresql postgres mysql mariadb sqlite mongodb mongo dynamodb cassandra cockroachdb " +
    "supabase firestore firebase oracle mssql|sql server clickhouse duckdb neo4j couchdb|planetscale",
  cache: "redis memcached valkey|keydb",
  search: "elasticsearch opensearch meilisearch typesense solr algolia",
  language:
    "typescript javascript python rust golang go java kotlin ruby php c# csharp c++ swift " +
    "elixir scala haskell clojure dart lua perl zig ocaml erlang f#",
  runtime: "node node.js nodejs deno bun",
  framework: "react vue svelte sveltekit angular next.js nextjs nuxt remix solid django flask " +
    "fastapi rails|ruby on rails express nestjs spring laravel phoenix astro htmx",
  "package manager": "npm pnpm yarn pip poetry uv cargo bundler composer",
  "test framework": "jest vitest mocha pytest jasmine rspec junit|cypress playwright",
  ci: "jenkins circleci buildkite travis|github actions|gitlab ci|travis ci",
  hosting: "aws gcp azure vercel netlify heroku fly.io cloudflare digitalocean render|google cloud",
  editor:
    "vim neovim nvim emacs vscode zed intellij webstorm|vs code|visual studio code|sublime text",
  shell: "bash zsh fish powershell",
  os: "linux macos windows ubuntu debian fedora|mac os",
  indentation: "tabs spaces|2 spaces|4 spaces|two spaces|four spaces",
  theme: "dark mode|light mode|dark theme|light theme",
  quotes: "single quotes|double quotes",
  "version control": "git mercurial svn",
  containers: "docker podman kubernetes k8s",
};

/** Lowercase name → category. */
const CATEGORY_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(CATEGORY_NAMES).flatMap(([category, names]) =>
    names.split("|").flatMap((group, i) =>
      // The first group is space-separated single names; the others are one phrase each.
      (i === 0 ? group.split(" ") : [group]).filter(Boolean).map((n) => [n, category] as const)
    )
  ),
);

/** Purpose words said differently for the same slot. */
const PURPOSE_ALIASES: Readonly<Record<string, string>> = {
  db: "database",
  dbs: "database",
  databases: "database",
  caching: "cache",
  tests: "testing",
  test: "testing",
  "unit tests": "unit testing",
  deploys: "deployment",
  deploying: "deployment",
  deployments: "deployment",
  "continuous integration": "ci",
  "front end": "frontend",
  "front-end": "frontend",
  "back end": "backend",
  "back-end": "backend",
  host: "hosting",
  editing: "editor",
};

const DETERMINERS = /^(?:(?:the|a|an|our|my|its|their|your|this|that|these|those|all|some)\s+)+/i;

/** The category of a named thing, trying the whole phrase and then its words; else undefined. */
export function categoryOf(phrase: string): string | undefined {
  const words = phrase.toLowerCase().replace(DETERMINERS, "").split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}#+]+$/gu, "")).filter(Boolean);
  for (let size = Math.min(words.length, 3); size >= 1; size--) {
    for (let i = 0; i + size <= words.length; i++) {
      const found = CATEGORY_OF.get(words.slice(i, i + size).join(" "));
      if (found) return found;
    }
  }
  return undefined;
}

/** A phrase as a key: lowercase, single-spaced, without leading determiners or end punctuation. */
export function keyOf(phrase: string): string {
  return phrase.toLowerCase().replace(/\s+/g, " ").trim().replace(/[.,;:!?]+$/, "")
    .replace(DETERMINERS, "").trim();
}

/** A purpose ("for the DB", "as a cache") as a key: "database", "cache". */
export function purposeKey(phrase: string): string {
  const key = keyOf(phrase);
  return PURPOSE_ALIASES[key] ?? key;
}

/**
 * The slot a preference is about: the category of either option, else the head noun of a short
 * noun phrase ("concise answers" → "answer"), else undefined.
 */
export function preferenceTopic(choice: string, other?: string): string | undefined {
  const category = categoryOf(choice) ?? (other ? categoryOf(other) : undefined);
  if (category) return category;
  const words = keyOf(choice).split(" ");
  const head = words.at(-1) ?? "";
  // Only a plain two- or three-word phrase has a trustworthy head ("working in the morning" has not).
  if (words.length < 2 || words.length > 3 || !/^[a-z]{3,}$/.test(head)) return undefined;
  if (words.some((w) => /^(?:in|on|at|to|of|for|with|by|from|and|or|when|than)$/.test(w))) {
    return undefined;
  }
  return singular(head);
}
