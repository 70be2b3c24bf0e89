import type { ZodError, ZodType } from 'zod';

/**
 * Splits a JSON object body, as its bytes arrive, into the elements of one top-level array member (e.g. `data`) and
 * the rest (the envelope, with that array left empty). Each element's text is handed on as soon as it is complete, so
 * a reader holds one element at a time rather than the whole body, its parse tree and its validated copy: an answer of
 * thousands of resources costs what one resource costs. Byte-level: every structural character of JSON is ASCII, and
 * no byte of a multi-byte UTF-8 character is one.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

function isWhitespace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

export class JsonListSplitter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Bytes of the depth-1 string being read (a key, or a value: the last one before `[` is that array's key). */
  private stringBytes: number[] | undefined;
  private lastString = '';
  private list: 'before' | 'in' | 'after' = 'before';
  private readonly envelope: Buffer[] = [];
  private readonly element: Buffer[] = [];
  private elementOpen = false;
  /** The largest element met, in bytes: with one element's parse, what a read holds at once. */
  largestElement = 0;
  elements = 0;

  constructor(
    private readonly key: string,
    private readonly onElement: (text: string, index: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let envelopeFrom = this.list === 'in' ? -1 : 0;
    let elementFrom = this.elementOpen ? 0 : -1;
    const openElement = (at: number) => {
      this.elementOpen = true;
      elementFrom = at;
    };
    const closeElement = (end: number) => {
      this.element.push(chunk.subarray(elementFrom, end));
      this.emit();
      elementFrom = -1;
    };
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      const inList = this.list === 'in' && this.depth === 2;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.stringBytes) this.lastString = Buffer.from(this.stringBytes).toString('utf8');
          this.stringBytes = undefined;
        } else this.stringBytes?.push(b);
      } else if (b === QUOTE) {
        this.inString = true;
        if (this.depth === 1) this.stringBytes = [];
        if (inList && !this.elementOpen) openElement(i);
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        if (this.list === 'before' && this.depth === 1 && b === OPEN_BRACKET && this.lastString === this.key) {
          this.list = 'in';
          this.envelope.push(chunk.subarray(envelopeFrom, i + 1));
          envelopeFrom = -1;
        } else if (inList && !this.elementOpen) openElement(i);
        this.depth++;
      } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (inList) {
          // The list's own `]` (a `}` here is malformed JSON, left to the envelope's parse to refuse).
          if (this.elementOpen) closeElement(i);
          this.list = 'after';
          envelopeFrom = i;
        } else if (this.list === 'in' && this.depth === 3 && this.elementOpen) {
          this.depth--;
          closeElement(i + 1);
          continue;
        }
        this.depth--;
      } else if (inList && b === COMMA) {
        if (this.elementOpen) closeElement(i);
      } else if (inList && !this.elementOpen && !isWhitespace(b)) openElement(i); // a number, true, false or null
    }
    if (envelopeFrom >= 0) this.envelope.push(chunk.subarray(envelopeFrom));
    if (elementFrom >= 0) this.element.push(chunk.subarray(elementFrom));
  }

  /** The envelope's text, the list left empty, once the body ended (a body cut off in the list is not JSON). */
  end(): string {
    return Buffer.concat(this.envelope).toString('utf8');
  }

  private emit(): void {
    const text = Buffer.concat(this.element);
    this.largestElement = Math.max(this.largestElement, text.length);
    this.element.length = 0;
    this.elementOpen = false;
    this.onElement(text.toString('utf8'), this.elements++);
  }
}

/** A streamed list member of a JSON body: its key, the schema of one element, and who takes each element checked. */
export interface ListSpec<E> {
  key: string;
  element: ZodType<E>;
  onElement(element: E, index: number): void;
}

/** What was wrong with a streamed element: not JSON, or not what its schema wants (`data.12.resource: Required`). */
export interface ElementFailure {
  problem: string;
  excerpt: string;
  kind: 'not-json' | 'schema';
}

/** Parses and checks each element the splitter hands on; the first failure is kept and the rest ignored. */
export class ListReader<E> {
  readonly splitter: JsonListSplitter;
  failure: ElementFailure | undefined;

  constructor(spec: ListSpec<E>) {
    this.splitter = new JsonListSplitter(spec.key, (text, index) => {
      if (this.failure) return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        this.failure = { problem: `${spec.key}.${index}: not JSON`, excerpt: text, kind: 'not-json' };
        return;
      }
      const checked = spec.element.safeParse(value);
      if (checked.success) spec.onElement(checked.data, index);
      else this.failure = { problem: issueText(checked.error, [spec.key, index]), excerpt: text, kind: 'schema' };
    });
  }
}

/** `path: message` of a schema's first issue, below `prefix`; `(root)` when it has no path. */
export function issueText(error: ZodError, prefix: ReadonlyArray<string | number> = []): string {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? [])];
  return `${path.length > 0 ? path.join('.') : '(root)'}: ${issue?.message ?? 'does not match the schema'}`;
}
