/**
 * Reads the docs' examples as data, for test/surface/docs-admin.test.ts: each
 * fenced `sh` block's curl commands (method, URL, headers, body), with the
 * `json` block that follows it as the documented answer of its last
 * command; and a partial match where a `"...": "..."` member stands for the
 * members left out.
 */

export interface Curl {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface Example {
  doc: string;
  commands: Curl[];
  answer: unknown;
}

const FENCE = /```(\w*)\n([\s\S]*?)```/g;

/** Every sh block of a doc with curl commands in it, and the json block right after it, if any. */
export function examplesOf(doc: string, text: string): Example[] {
  const blocks = [...text.matchAll(FENCE)].map((match) => ({
    lang: match[1],
    body: match[2] ?? "",
    end: (match.index ?? 0) + match[0].length,
    start: match.index ?? 0,
  }));
  const examples: Example[] = [];
  blocks.forEach((block, index) => {
    if (block.lang !== "sh") return;
    const commands = curlCommands(block.body);
    if (commands.length === 0) return;
    const next = blocks[index + 1];
    const adjacent = next !== undefined && next.lang === "json" && text.slice(block.end, next.start).trim() === "";
    examples.push({ doc, commands, answer: adjacent ? JSON.parse(next.body) : undefined });
  });
  return examples;
}

/** The curl commands of a shell block: quotes may span lines, a backslash continues one, `#` starts a comment. */
export function curlCommands(script: string): Curl[] {
  return shellCommands(script.replace(/\\\n/g, " ")).flatMap((words) =>
    words[0] === "curl" ? [parseCurl(words.slice(1))] : [],
  );
}

function parseCurl(words: string[]): Curl {
  const curl: Curl = { method: "GET", url: "", headers: {}, body: undefined };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "-X") curl.method = words[++i]!;
    else if (word === "-H") {
      const [name, ...value] = words[++i]!.split(":");
      curl.headers[name!.trim().toLowerCase()] = value.join(":").trim();
    } else if (word === "-d") {
      curl.body = words[++i];
      if (curl.method === "GET") curl.method = "POST";
    } else if (word === "-o" || word === "-w") i++;
    else if (!word.startsWith("-")) curl.url = word;
  }
  return curl;
}

// Commands as a POSIX shell splits them into words: single quotes literal,
// double quotes literal but for $VAR (left for the caller to substitute).
function shellCommands(script: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | null = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  for (let i = 0; i < script.length; i++) {
    const char = script[i]!;
    if (char === "'" || char === '"') {
      const close = script.indexOf(char, i + 1);
      if (close < 0) throw new Error(`an unclosed ${char} in: ${script.slice(i, i + 60)}`);
      word = (word ?? "") + script.slice(i + 1, close);
      i = close;
    } else if (char === "#" && word === null) {
      while (i + 1 < script.length && script[i + 1] !== "\n") i++;
    } else if (char === "\n" || char === ";") {
      endWord();
      if (words.length > 0) commands.push(words);
      words = [];
    } else if (/\s/.test(char)) endWord();
    else word = (word ?? "") + char;
  }
  endWord();
  if (words.length > 0) commands.push(words);
  return commands;
}

/**
 * Whether `actual` is what the docs show: equal, except that an object with
 * a `"..."` member may have more members than it shows.
 *
 * @example
 * matchesDoc({ a: 1, b: 2 }, { a: 1, "...": "..." }) // true
 */
export function matchesDoc(actual: unknown, shown: unknown): boolean {
  if (Array.isArray(shown))
    return (
      Array.isArray(actual) && actual.length === shown.length && shown.every((item, i) => matchesDoc(actual[i], item))
    );
  if (typeof shown === "object" && shown !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return false;
    const keys = Object.keys(shown).filter((key) => key !== "...");
    const partial = "..." in shown;
    if (!partial && Object.keys(actual).length !== keys.length) return false;
    return keys.every(
      (key) =>
        key in actual && matchesDoc((actual as Record<string, unknown>)[key], (shown as Record<string, unknown>)[key]),
    );
  }
  return Object.is(actual, shown);
}
