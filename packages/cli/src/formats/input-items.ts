/** A problem found while reading a file, before any trace validation. */
export interface ReadProblem {
  type: 'problem';
  /** 1-based line, when known. */
  line: number | undefined;
  /** 1-based column, for JSON syntax errors. */
  column?: number;
  /** Where in the document (JSON path), for JSON documents. */
  path?: string;
  /** The seed's `VALIDATION` (not JSON, wrong format) or `PAYLOAD_TOO_LARGE` (line over the limit). */
  code: 'VALIDATION' | 'PAYLOAD_TOO_LARGE';
  message: string;
}

/** One chat-event trace of a file. */
export interface TraceItem {
  type: 'trace';
  /** The trace as read: an array of events or `{ messages | events, metadata? }`. */
  value: unknown;
  /** 0-based position of this trace among the file's traces. */
  index: number;
  /** A name for the trace in reports: its metadata id when it has one, else `#index`. */
  label: string;
  /** Line of the trace's first event (JSONL: its line). */
  line: number | undefined;
  /** Line of event `i`, when it can be known. */
  lineOfEvent(index: number): number | undefined;
}

/** One block of a file. */
export interface BlockItem {
  type: 'block';
  value: unknown;
  line: number | undefined;
  /** JSON path in a JSON document (`'12'`), empty for JSONL. */
  path: string;
}

/** One `TraceEntry` of a file. */
export interface EntryItem {
  type: 'entry';
  value: unknown;
  line: number | undefined;
  path: string;
}

/** A dataset's own metadata. */
export interface DatasetMetadataItem {
  type: 'dataset-metadata';
  value: unknown;
  line: number | undefined;
}

/** What `openInput` yields, in file order. */
export type InputItem = TraceItem | BlockItem | EntryItem | DatasetMetadataItem | ReadProblem;
