/**
 * @module JSON to readable markdown: chat transcripts (an array of `{role, content}`, a
 * `{messages: [...]}` object, ChatGPT and Claude exports) become a conversation; other JSON is kept
 * as a fenced block so it is still searchable.
 */

interface Turn {
  role: string;
  text: string;
}

/** Markdown for parsed JSON, and a title when the JSON names one. */
export function jsonToMarkdown(value: unknown, name: string): { title: string; markdown: string } {
  const conversations = conversationsOf(value);
  if (conversations.length > 0) {
    const sections = conversations.map((c, i) => {
      const heading = conversations.length > 1
        ? `## ${c.title ?? `Conversation ${i + 1}`}\n\n`
        : "";
      return heading + c.turns.map((t) => `**${t.role}:** ${t.text}`).join("\n\n");
    });
    const title = conversations.length === 1 && conversations[0].title
      ? conversations[0].title
      : `Transcript: ${name}`;
    return { title, markdown: `# ${title}\n\n${sections.join("\n\n")}\n` };
  }
  const pretty = JSON.stringify(value, null, 2);
  // A fence longer than any backtick run inside, so a string holding ``` cannot close it early.
  const fence = "`".repeat(Math.max(3, ...[...pretty.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return { title: name, markdown: `# ${name}\n\n${fence}json\n${pretty}\n${fence}\n` };
}

function conversationsOf(value: unknown): { title?: string; turns: Turn[] }[] {
  const direct = turnsOf(value);
  if (direct) return [{ turns: direct }];
  if (isObject(value)) {
    const turns = turnsOf(value.messages ?? value.chat_messages) ?? mappingTurns(value.mapping);
    if (turns) return [{ title: str(value.title ?? value.name), turns }];
  }
  if (Array.isArray(value) && value.length > 0 && value.every(isObject)) {
    const many = value.map((v) => conversationsOf(v)[0]).filter(Boolean);
    if (many.length === value.length) return many;
  }
  return [];
}

/** An array of messages in any of the common shapes, or null. */
function turnsOf(value: unknown): Turn[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const turns: Turn[] = [];
  for (const m of value) {
    if (!isObject(m)) return null;
    const role = str(m.role ?? m.sender ?? (isObject(m.author) ? m.author.role : undefined));
    const text = textOf(m.content ?? m.text);
    if (!role || text === null) return null;
    if (text.trim()) turns.push({ role, text: text.trim() });
  }
  return turns;
}

/** ChatGPT's export keeps messages in a `mapping` tree; creation order is good enough to read. */
function mappingTurns(mapping: unknown): Turn[] | null {
  if (!isObject(mapping)) return null;
  const nodes = Object.values(mapping).filter(isObject).map((n) => n.message).filter(isObject);
  nodes.sort((a, b) => (Number(a.create_time) || 0) - (Number(b.create_time) || 0));
  const turns = turnsOf(nodes.filter((m) => textOf(m.content)?.trim()));
  return turns && turns.length ? turns : null;
}

function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === "string" ? p : isObject(p) ? str(p.text) ?? "" : ""))
      .join("\n");
  }
  if (isObject(content) && Array.isArray(content.parts)) return textOf(content.parts);
  if (isObject(content) && typeof content.text === "string") return content.text;
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}
