// The distributable: `npm pack` makes the tarball `npm publish` would upload,
// with the name, version, licence, README and LICENSE, the built client and
// verifier (and their types), and nothing of the tests.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";

import { PACKAGE_ROOT, load } from "./helpers";
import { tempDir } from "./relay-process";

test("npm pack makes a tarball with name, version, licence, README and the build", () => {
  const { dir, remove } = tempDir();
  try {
    const out = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
      cwd: PACKAGE_ROOT,
      encoding: "utf8",
      env: { ...process.env, npm_config_loglevel: "error" },
    });
    const [packed] = JSON.parse(out);
    const pkg = load(path.join(PACKAGE_ROOT, "package.json"));
    assert.equal(packed.name, "@relay/sdk");
    assert.equal(packed.version, pkg.version);
    const tarball = path.join(dir, packed.filename);
    const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
    for (const f of [
      "package/package.json",
      "package/README.md",
      "package/LICENSE",
      "package/dist/src/index.js",
      "package/dist/src/index.d.ts",
      "package/dist/src/client/relay.js",
      "package/dist/src/generated/api.d.ts",
    ]) {
      assert.ok(files.includes(f), `${f} is not in the tarball: ${files.join(", ")}`);
    }
    assert.ok(!files.some((f) => f.startsWith("package/dist/test/") || f.startsWith("package/src/")), files.join(", "));
    const inside = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
    assert.deepEqual([inside.name, inside.version, inside.license], ["@relay/sdk", pkg.version, "Apache-2.0"]);
  } finally {
    remove();
  }
});
