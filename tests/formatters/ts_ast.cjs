// The TypeScript compiler's verdict on a reformat: its AST without trivia (comments, layout),
// parentheses and positions. Reads [{"name", "text"}] as JSON on stdin, writes {name: dump} (null when
// the compiler reports a syntax error). Literals are written as their values (quotes and escapes are
// spelling), property names as names (`{"a": 1}` is `{a: 1}`), regex flags sorted, `;` statements dropped.
"use strict";
const ts = require("typescript");

const NAME_OWNERS = new Set([ts.SyntaxKind.PropertyAssignment, ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.PropertyDeclaration, ts.SyntaxKind.MethodDeclaration, ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.GetAccessor, ts.SyntaxKind.SetAccessor, ts.SyntaxKind.EnumMember]);
const NAME_KINDS = new Set([ts.SyntaxKind.Identifier, ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NumericLiteral]);
const TRANSPARENT = new Set([ts.SyntaxKind.ParenthesizedExpression, ts.SyntaxKind.ParenthesizedType]);

function dump(root) {
  const out = [];
  const visit = (node, parent) => {
    if (TRANSPARENT.has(node.kind)) { ts.forEachChild(node, (child) => visit(child, parent)); return; }
    if (node.kind === ts.SyntaxKind.EmptyStatement) return;
    if (parent && NAME_OWNERS.has(parent.kind) && parent.name === node && NAME_KINDS.has(node.kind)) {
      out.push(`Name:${JSON.stringify(node.text)}`);
      return;
    }
    let head = ts.SyntaxKind[node.kind];
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const slash = node.text.lastIndexOf("/");
      head += `:${JSON.stringify(node.text.slice(0, slash + 1) + [...node.text.slice(slash + 1)].sort().join(""))}`;
    } else if (ts.isLiteralKind(node.kind) || ts.isTemplateLiteralKind(node.kind) || ts.isIdentifier(node)
        || ts.isPrivateIdentifier(node)) {
      head += `:${JSON.stringify(node.text)}`;
    }
    for (const field of ["operator", "token", "keywordToken", "isTypeOnly", "isExportEquals"]) {
      if (node[field] !== undefined) head += ` ${field}=${node[field]}`;
    }
    if (node.kind === ts.SyntaxKind.VariableDeclarationList) head += ` flags=${node.flags & 7}`;
    out.push(`(${head}`);
    ts.forEachChild(node, (child) => visit(child, node));
    out.push(")");
  };
  visit(root, undefined);
  return out.join(" ");
}

let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const result = {};
  for (const { name, text } of JSON.parse(input)) {
    const kind = /\.tsx$/i.test(name) ? ts.ScriptKind.TSX : /\.[cm]?jsx?$/i.test(name) ? ts.ScriptKind.JSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, false, kind);
    result[name] = source.parseDiagnostics.length ? null : dump(source);
  }
  process.stdout.write(JSON.stringify(result));
});
