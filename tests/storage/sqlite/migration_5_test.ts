import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { TokenService } from "../../../src/core/bearer_tokens.ts";
import { MIGRATIONS } from "../../../src/storage/sqlite/migrations.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { tempDir } from "../../helpers.ts";

Deno.test("migration 5: a schema-4 database gains an empty tokens table with a unique hash", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  const old = new DatabaseSync(file);
  for (const sql of MIGRATIONS.slice(0, 4)) old.exec(sql);
  old.exec("PRAGMA user_version = 4");
  old.close();

  const storage = openSqliteStorage(file);
  try {
    const version = storage.connection.db.prepare("PRAGMA user_version").get() as {
      user_version: number;
    };
    assert.ok(MIGRATIONS.length >= 5);
    assert.equal(version.user_version, MIGRATIONS.length);
    const columns = storage.connection.db.prepare("PRAGMA table_info(tokens)").all().map((r) =>
      r.name
    );
    assert.deepEqual(columns, [
      "id",
      "client_id",
      "tier",
      "brains",
      "token_hash",
      "prefix",
      "created_at",
      "last_used_at",
      "revoked_at",
      "tools",
      "expires_at",
      "audience",
      "oauth_client_id",
      "operator",
    ]);
    const unique = storage.connection.db.prepare("PRAGMA index_list(tokens)").all().filter((i) =>
      i.unique
    );
    const uniqueColumns = unique.flatMap((i) =>
      storage.connection.db.prepare(`PRAGMA index_info(${JSON.stringify(i.name)})`).all().map((c) =>
        c.name
      )
    );
    assert.ok(uniqueColumns.includes("token_hash"), uniqueColumns.join(", "));
    assert.deepEqual(await storage.tokens.listTokens(), []);
    const tokens = new TokenService(storage);
    const { token } = await tokens.create({ client: "after-upgrade", tier: "read" });
    assert.equal((await tokens.verify(token))?.clientId, "after-upgrade");
    assert.throws(
      () =>
        storage.connection.db.exec(
          `INSERT INTO tokens (id, client_id, tier, brains, token_hash, prefix, created_at)
           VALUES ('tok_x', 'c', 'owner', '*', 'h', 'p', 't')`,
        ),
      /CHECK constraint/,
    );
  } finally {
    storage.close();
  }
});
