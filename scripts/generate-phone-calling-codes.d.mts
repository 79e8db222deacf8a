export interface CallingCodeTable {
  version: string;
  codes: [code: number, nationalPrefixForParsing: string, possibleLengths: number[]][];
}
export const tablePath: string;
export function callingCodeTable(): CallingCodeTable;
export function renderTable(table: CallingCodeTable): Promise<string>;
