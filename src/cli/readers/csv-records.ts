import { describeLimit, MAX_RECORD_CHARS } from './record-limits.js';

/** A row that could not be read: reported as one invalid record, and the rows after it are still read. */
export class CsvProblem {
  constructor(readonly reason: string) {}
}

// Splits CSV text into records as it streams in. Quoted fields may hold commas, doubled quotes and
// line breaks (RFC 4180). The platform's exporter quotes display names containing commas without escaping
// their quotes, so a quote is kept as a character when it is inside an unquoted field, or inside a quoted
// one and not followed by a comma or a line end (where RFC 4180 text always has one).
export async function* streamCsvRecords(
  chunks: AsyncIterable<string>,
  maxChars = MAX_RECORD_CHARS,
  options: CsvOptions = {},
): AsyncGenerator<string[] | CsvProblem> {
  const parser = new CsvParser(maxChars, options);
  for await (const chunk of chunks) yield* parser.feed(chunk);
  yield* parser.end();
}

export interface CsvOptions {
  /**
   * Inside a quoted field, a quote right after a backslash is a character, neither a closing quote nor half of a
   * doubled one: firebase-tools doubles only the quotes of the custom claims that no backslash precedes.
   */
  backslashQuotes?: boolean;
}

class CsvParser {
  private record: string[] = [];
  private field = '';
  private quoted = false;
  private inQuotes = false;
  private pendingQuote = false;
  private pendingCr = false;
  private recordChars = 0;
  /** Skipping the rest of a line too long to read. */
  private skipping = false;
  /** The raw text since the open quote field began, in pieces: read again from its next line if it never closes. */
  private sinceQuote: string[] = [];

  constructor(
    private readonly maxChars: number,
    private readonly options: CsvOptions,
  ) {}

  *feed(chunk: string): Generator<string[] | CsvProblem> {
    let quoteStart = this.inQuotes ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const char = chunk[i];
      if (this.pendingCr) {
        this.pendingCr = false;
        if (char === '\n') continue;
      }
      if (this.skipping) {
        if (char === '\n' || char === '\r') {
          this.skipping = false;
          this.pendingCr = char === '\r';
        }
        continue;
      }
      if (++this.recordChars > this.maxChars) {
        if (this.inQuotes) {
          // Most often a quote that is never closed: the row is refused, and the text after its first line read again.
          this.sinceQuote.push(chunk.slice(quoteStart));
          yield* this.unclosedQuote(`a quoted field is longer than ${describeLimit(this.maxChars)} or never closed`);
          return;
        }
        yield new CsvProblem(`is longer than ${describeLimit(this.maxChars)}: not read`);
        this.reset();
        this.skipping = char !== '\n' && char !== '\r';
        continue;
      }
      if (this.inQuotes) {
        if (this.pendingQuote) {
          this.pendingQuote = false;
          if (char === '"') {
            this.field += '"';
            continue;
          }
          if (char !== ',' && char !== '\n' && char !== '\r') {
            this.field += `"${char}`;
            continue;
          }
          this.inQuotes = false;
          this.sinceQuote = [];
        } else if (char === '"' && this.options.backslashQuotes === true && this.field.endsWith('\\')) {
          this.field += char;
          continue;
        } else if (char === '"') {
          this.pendingQuote = true;
          continue;
        } else {
          this.field += char;
          continue;
        }
      }
      if (char === ',') {
        this.record.push(this.field);
        this.field = '';
        this.quoted = false;
      } else if (char === '\n' || char === '\r') {
        this.record.push(this.field);
        if (!isBlank(this.record)) yield this.record;
        this.reset();
        this.pendingCr = char === '\r';
      } else if (char === '"' && this.field === '' && !this.quoted) {
        this.quoted = true;
        this.inQuotes = true;
        quoteStart = i;
      } else {
        this.field += char;
      }
    }
    if (this.inQuotes) this.sinceQuote.push(chunk.slice(Math.max(0, quoteStart)));
  }

  *end(): Generator<string[] | CsvProblem> {
    if (this.pendingQuote) this.inQuotes = false;
    if (this.inQuotes) {
      yield* this.unclosedQuote('a quoted field is never closed');
      yield* this.end();
      return;
    }
    if (this.skipping) return;
    this.record.push(this.field);
    if (!isBlank(this.record)) yield this.record;
    this.reset();
  }

  private *unclosedQuote(reason: string): Generator<string[] | CsvProblem> {
    const text = this.sinceQuote.join('');
    this.reset();
    yield new CsvProblem(reason);
    const lineEnd = text.search(/[\r\n]/);
    if (lineEnd !== -1) yield* this.feed(text.slice(lineEnd));
  }

  private reset(): void {
    this.record = [];
    this.field = '';
    this.quoted = false;
    this.inQuotes = false;
    this.pendingQuote = false;
    this.recordChars = 0;
    this.sinceQuote = [];
  }
}

function isBlank(record: string[]): boolean {
  return record.length === 1 && record[0].trim() === '';
}
