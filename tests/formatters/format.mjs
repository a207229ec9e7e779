// prettier in one process for many inputs: reads [{"filepath", "text", "options"}] as JSON on stdin
// (options as prettier's API takes them, e.g. {"printWidth": 40}), writes the formatted texts in order
// (null where prettier refused the input). The PHP plugin is always loaded.
import * as prettier from "prettier";
import * as php from "@prettier/plugin-php";

let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", async () => {
  const out = [];
  for (const { filepath, text, options } of JSON.parse(input)) {
    try {
      out.push(await prettier.format(text, { ...options, filepath, plugins: [php] }));
    } catch {
      out.push(null);
    }
  }
  process.stdout.write(JSON.stringify(out));
});
