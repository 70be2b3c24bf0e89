export declare const MAX_COLUMNS: number;
export interface LongLine {
  path: string;
  line: number;
  columns: number;
}
export declare function isSource(path: string): boolean;
export declare function longLines(path: string, max?: number): LongLine[];
export declare function trackedSources(): string[];
