// Splits CSV text into records as it streams in. Quoted fields may hold commas, doubled quotes and
// line breaks (RFC 4180). The platform's exporter quotes display names containing commas without escaping
// their quotes, so a quote is kept as a character when it is inside an unquoted field, or inside a quoted
// one and not followed by a comma or a line end (where RFC 4180 text always has one).
export async function* streamCsvRecords(chunks: AsyncIterable<string>): AsyncGenerator<string[]> {
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let pendingQuote = false;
  let pendingCr = false;

  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const char = chunk[i];
      if (pendingCr) {
        pendingCr = false;
        if (char === '\n') continue;
      }
      if (inQuotes) {
        if (pendingQuote) {
          pendingQuote = false;
          if (char === '"') {
            field += '"';
            continue;
          }
          if (char !== ',' && char !== '\n' && char !== '\r') {
            field += `"${char}`;
            continue;
          }
          inQuotes = false;
        } else if (char === '"') {
          pendingQuote = true;
          continue;
        } else {
          field += char;
          continue;
        }
      }
      if (char === ',') {
        record.push(field);
        field = '';
        quoted = false;
      } else if (char === '\n' || char === '\r') {
        record.push(field);
        if (!isBlank(record)) yield record;
        record = [];
        field = '';
        quoted = false;
        pendingCr = char === '\r';
      } else if (char === '"' && field === '' && !quoted) {
        quoted = true;
        inQuotes = true;
      } else {
        field += char;
      }
    }
  }
  if (pendingQuote) inQuotes = false;
  if (inQuotes) throw new Error('the CSV file ends inside a quoted field');
  record.push(field);
  if (!isBlank(record)) yield record;
}

function isBlank(record: string[]): boolean {
  return record.length === 1 && record[0].trim() === '';
}
