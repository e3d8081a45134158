import { createHash } from "node:crypto";
import type { AnyWorkflow } from "../workflow";

/**
 * The build identity of a workflow's code: sha256 of the normalised source of `run` (and of
 * `onFailure` when it has one), as the worker process loaded them (`Function.prototype.toString`).
 * It covers whatever those functions contain — step bodies written inline, the order and keys of
 * operations, the code between them — and not the helpers they call from elsewhere in the module.
 *
 * What does not change it (normaliseSource): whitespace, line breaks, comments, the quote style of
 * a plain string literal, semicolons and trailing commas — the differences between a worker run
 * through tsx (esbuild prints the code anew) and the same source compiled by tsc. What does: any
 * other edit of those functions, including renaming a local variable; and a compiler that rewrites
 * the code otherwise (another target that lowers `async`, a bundler renaming a clashing identifier).
 * So deploy one build per version, and expect a toolchain change to count as a code change.
 */
export function codeFingerprintOf(workflow: AnyWorkflow): string {
  const onFailure = (workflow as { onFailure?: unknown }).onFailure;
  const sources = [normaliseSource(String(workflow.run))];
  if (typeof onFailure === "function") sources.push(normaliseSource(String(onFailure)));
  return createHash("sha256").update(JSON.stringify(sources)).digest("hex");
}

const WORD = /[\p{L}\p{N}_$]/u;
/** After one of these (or a keyword below), a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set([
  "",
  "(",
  ",",
  "=",
  ":",
  "[",
  "!",
  "&",
  "|",
  "?",
  "{",
  "}",
  ";",
  "+",
  "-",
  "*",
  "%",
  "<",
  ">",
  "~",
  "^",
]);
const KEYWORDS_BEFORE_REGEX = new Set(["return", "typeof", "case", "do", "else", "in", "of", "void", "yield", "await", "throw"]);

/**
 * The source with comments and insignificant whitespace dropped (one space is kept between two
 * word characters), `;` and trailing commas dropped, and plain string literals rewritten with
 * double quotes; then the loaders' rewrites undone (canonicalForms). The text of template literals and regular expressions is kept as written (a
 * template's `${…}` expressions are normalised like the rest). A scanner, not a
 * parser: the rare source it misreads still fingerprints the same way on every load of one build.
 */
export function normaliseSource(source: string): string {
  return canonicalForms(scan(source));
}

/**
 * What loaders rewrite besides layout: an imported name read through the module namespace the
 * loader made for it (vitest's `__vite_ssr_import_0__.x`, esbuild's CommonJS `(0, import_mod.x)`),
 * and a lone arrow parameter with or without parentheses. Applied to the scanned text as a whole,
 * so it also touches such text inside a string — harmless for a fingerprint.
 */
function canonicalForms(text: string): string {
  const namespace = "(?:__vite_ssr_import_\\d+__|__vi_import_\\d+__|import_[\\w$]+)";
  return (
    text
      // `new (0,import_sdk.X)(…)`: the name then follows a word, so it keeps a space from it.
      .replace(new RegExp(`([\\w$])?\\(0,${namespace}\\.([\\w$]+)\\)`, "g"), (_all, word: string | undefined, name: string) =>
        word ? `${word} ${name}` : name,
      )
      .replace(new RegExp(`(^|[^\\w$.])${namespace}\\.([\\w$]+)`, "g"), "$1$2")
      .replace(/\basync\(([\w$]+)\)=>/g, "async $1=>")
      .replace(/(^|[^\w$])\(([\w$]+)\)=>/g, "$1$2=>")
  );
}

function scan(source: string): string {
  let out = "";
  let lastToken = "";
  let pendingSpace = false;
  const emit = (text: string) => {
    if (pendingSpace && WORD.test(out.at(-1) ?? "") && WORD.test(text[0] ?? "")) out += " ";
    pendingSpace = false;
    out += text;
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (/\s/.test(c)) {
      pendingSpace = true;
      i += 1;
    } else if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i += 1;
      pendingSpace = true;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end === -1 ? source.length : end + 2;
      pendingSpace = true;
    } else if (c === '"' || c === "'") {
      const end = quotedEnd(source, i);
      emit(JSON.stringify(unquote(source.slice(i + 1, end - 1))));
      lastToken = '"';
      i = end;
    } else if (c === "`") {
      const template = normaliseTemplate(source, i);
      emit(template.text);
      lastToken = "`";
      i = template.end;
    } else if (c === "/" && (BEFORE_REGEX.has(lastToken) || KEYWORDS_BEFORE_REGEX.has(lastToken))) {
      const end = regexEnd(source, i);
      emit(source.slice(i, end));
      lastToken = "/regex/";
      i = end;
    } else if (WORD.test(c)) {
      let end = i;
      while (end < source.length && WORD.test(source[end] as string)) end += 1;
      lastToken = source.slice(i, end);
      emit(lastToken);
      i = end;
    } else {
      i += 1;
      lastToken = c;
      // A dropped `;` separates like a line break: `false;return` and `false\nreturn` read the same.
      if (c === ";") {
        pendingSpace = true;
        continue;
      }
      if (c === "," && /^\s*[)\]}]/.test(stripLeadingComments(source.slice(i, i + 200)))) continue;
      emit(c);
    }
  }
  return out;
}

/** The index just past the closing quote of the string literal that starts at `start`. */
function quotedEnd(source: string, start: number): number {
  const quote = source[start];
  let i = start + 1;
  while (i < source.length && source[i] !== quote) i += source[i] === "\\" ? 2 : 1;
  return Math.min(i + 1, source.length);
}

/**
 * The template literal that starts at `start`, its text kept and each `${…}` expression normalised
 * (compilers print the expressions inside a template as they print any other code), and the index
 * just past its closing backtick.
 */
function normaliseTemplate(source: string, start: number): { text: string; end: number } {
  let text = "`";
  let i = start + 1;
  while (i < source.length && source[i] !== "`") {
    if (source[i] === "\\") {
      text += source.slice(i, i + 2);
      i += 2;
    } else if (source[i] === "$" && source[i + 1] === "{") {
      const close = expressionEnd(source, i + 2);
      text += `\${${normaliseSource(source.slice(i + 2, close))}}`;
      i = close + 1;
    } else {
      text += source[i];
      i += 1;
    }
  }
  return { text: `${text}\``, end: Math.min(i + 1, source.length) };
}

/** The index of the `}` that closes a template's `${` expression starting at `start`. */
function expressionEnd(source: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < source.length) {
    const c = source[i];
    if (c === "`") i = normaliseTemplate(source, i).end;
    else if (c === '"' || c === "'") i = quotedEnd(source, i);
    else {
      if (c === "{") depth += 1;
      if (c === "}" && --depth === 0) return i;
      i += 1;
    }
  }
  return source.length;
}

/** The index just past a regular expression literal's flags (a `/` inside a class `[...]` does not end it). */
function regexEnd(source: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < source.length && source[i] !== "\n") {
    const c = source[i];
    if (c === "\\") i += 2;
    else {
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) break;
      i += 1;
    }
  }
  i += 1;
  while (i < source.length && /[a-z]/i.test(source[i] as string)) i += 1;
  return Math.min(i, source.length);
}

function stripLeadingComments(text: string): string {
  return text.replace(/^(\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*/, "");
}

/** The value of a string literal's body: escapes decoded, so `'it\'s'` and `"it's"` are one string. */
function unquote(body: string): string {
  return body.replace(/\\(u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|\r\n|[\s\S])/g, (_, all, cp, u4, x2) => {
    if (cp) return String.fromCodePoint(Number.parseInt(cp, 16));
    if (u4 || x2) return String.fromCharCode(Number.parseInt(u4 ?? x2, 16));
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" };
    if (all === "\n" || all === "\r\n" || all === "\r" || all === "\u2028" || all === "\u2029") return "";
    return simple[all] ?? all;
  });
}
